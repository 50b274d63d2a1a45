// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The DEVX asynchronous command channel, as mlx5_ib offers it to libmlx5
 * (mlx5dv_devx_create_cmd_comp, mlx5dv_devx_obj_query_async,
 * mlx5dv_devx_get_async_cmd_comp): a file a DEVX context reads the answers
 * of its object queries from.
 *
 * devx.c checks a query as it checks a synchronous one and hands it here
 * with the caller's wr_id. Each read gives one answer: the wr_id and the
 * command's output, whatever its status (a command firmware refused
 * carries status and syndrome, as on mlx5_ib; one the driver could not
 * run, a dead device's among them, the driver status mlx5_core uses).
 * The output sizes of the answers not yet read count against a budget
 * per file; a query past it fails with -EAGAIN until some are read (and
 * so does one with 256 of the file's commands still running).
 *
 * cmd.c has no completion callback of its own: mlx5sp_cmd_exec_cb() runs
 * the command in a work item of the device's command workqueue, where it
 * waits for its slot and its completion like any other command, and the
 * callback queues the answer from there (process context).
 *
 * The file ends (closed, its context destroyed, the device removed) only
 * once none of its commands is in flight: no callback touches it after
 * that, and no command of a removed device runs on.
 */
#include <linux/poll.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME mlx5sp_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "ib.h"

#define DEVX_ASYNC_BYTES_MAX	SZ_1M	/* output bytes unread, as mlx5_ib */
/*
 * Commands in flight: each holds a copy of its input (up to 64 KiB) that
 * the byte budget does not count. mlx5_core throttles its asynchronous
 * commands too; here the query fails with -EAGAIN instead of blocking.
 */
#define DEVX_ASYNC_INFLIGHT_MAX	256
/* mlx5_core's status and syndrome of a command the driver did not run */
#define DEVX_ASYNC_STATUS_ABORTED	0xfe
#define DEVX_ASYNC_SYND_ABORTED		0xbadd00de

/*
 * Locking: file->lock (process context only: callbacks run in a work
 * item) protects the file's queue, bytes, inflight and destroyed. An
 * answer is in flight (cmd.c has it) or on the queue, never both; the
 * callback's last touch of the file is under the lock, so destroy, which
 * takes the lock to see inflight at 0, never frees what a callback uses.
 */
struct mlx5sp_devx_async_file {
	struct ib_uobject uobj;
	struct mlx5sp_ib_dev *dev;
	spinlock_t lock;		/* see above */
	struct list_head queue;		/* answers, oldest first */
	unsigned int bytes;		/* output bytes in flight or unread */
	unsigned int inflight;		/* commands not yet answered */
	wait_queue_head_t poll_wait;	/* readers, and destroy for inflight */
	bool destroyed;
};

struct mlx5sp_devx_async_answer {
	struct list_head list;		/* in file->queue once answered */
	struct mlx5sp_devx_async_file *file;
	void *in;			/* the command, until it has run */
	u16 outlen;
	/* last: hdr.out_data holds outlen bytes */
	struct mlx5_ib_uapi_devx_async_cmd_hdr hdr;
};

static void devx_async_cmd_done(int err, void *ctx)
{
	struct mlx5sp_devx_async_answer *a = ctx;
	struct mlx5sp_devx_async_file *file = a->file;
	void *out = a->hdr.out_data;

	kvfree(a->in);
	a->in = NULL;
	/* failed short of firmware: say so in the output, as mlx5_core does */
	if (err && !MLX5SP_CMD_STATUS(out)) {
		MLX5_SET(general_obj_out_cmd_hdr, out, status, DEVX_ASYNC_STATUS_ABORTED);
		MLX5_SET(general_obj_out_cmd_hdr, out, syndrome, DEVX_ASYNC_SYND_ABORTED);
	}
	/* the file waits for inflight to drop before it ends: it is here */
	spin_lock(&file->lock);
	list_add_tail(&a->list, &file->queue);
	file->inflight--;
	wake_up(&file->poll_wait);
	spin_unlock(&file->lock);
}

/**
 * mlx5sp_devx_async_query - run a checked DEVX query, answer on a file
 * @fd_uobj: the MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD to answer on
 * @in: the command, uid stamped (copied: the caller keeps it)
 * @inlen: bytes of @in
 * @outlen: bytes of output the answer carries
 * @wr_id: the caller's id for the answer
 *
 * Return: 0 once the command is queued, -EAGAIN past the file's budget or
 * with too many of its commands in flight, -EIO if the file has ended.
 */
int mlx5sp_devx_async_query(struct ib_uobject *fd_uobj, const void *in,
			    int inlen, u16 outlen, u64 wr_id)
{
	struct mlx5sp_devx_async_file *file =
		container_of(fd_uobj, struct mlx5sp_devx_async_file, uobj);
	struct mlx5sp_devx_async_answer *a;
	int err;

	/* room for the status at least */
	if (outlen < MLX5_ST_SZ_BYTES(general_obj_out_cmd_hdr))
		return -EINVAL;
	a = kvzalloc(struct_size(a, hdr.out_data, outlen), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;
	a->in = kvmemdup(in, inlen, GFP_KERNEL_ACCOUNT);
	if (!a->in) {
		err = -ENOMEM;
		goto err_free;
	}
	a->file = file;
	a->outlen = outlen;
	a->hdr.wr_id = wr_id;

	spin_lock(&file->lock);
	if (file->destroyed)
		err = -EIO;
	else if (file->bytes + outlen > DEVX_ASYNC_BYTES_MAX ||
		 file->inflight >= DEVX_ASYNC_INFLIGHT_MAX)
		err = -EAGAIN;
	else
		err = 0;
	if (!err) {
		file->bytes += outlen;
		file->inflight++;
	}
	spin_unlock(&file->lock);
	if (err)
		goto err_free_in;

	err = mlx5sp_cmd_exec_cb(file->dev->mdev, a->in, inlen, a->hdr.out_data,
				 outlen, devx_async_cmd_done, a);
	if (err) {
		spin_lock(&file->lock);
		file->bytes -= outlen;
		file->inflight--;
		wake_up(&file->poll_wait);
		spin_unlock(&file->lock);
		goto err_free_in;
	}
	return 0;

err_free_in:
	kvfree(a->in);
err_free:
	kvfree(a);
	return err;
}

static ssize_t devx_async_read(struct file *filp, char __user *buf,
			       size_t count, loff_t *pos)
{
	struct mlx5sp_devx_async_file *file = filp->private_data;
	struct mlx5sp_devx_async_answer *a;
	size_t size;

	spin_lock(&file->lock);
	while (list_empty(&file->queue) && !file->destroyed) {
		spin_unlock(&file->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->poll_wait,
					     !list_empty(&file->queue) ||
					     file->destroyed))
			return -ERESTARTSYS;
		spin_lock(&file->lock);
	}
	/* the device or the context went: answers were dropped with it */
	if (file->destroyed) {
		spin_unlock(&file->lock);
		return -EIO;
	}
	a = list_first_entry(&file->queue, struct mlx5sp_devx_async_answer,
			     list);
	size = sizeof(a->hdr) + a->outlen;
	/* too small for the oldest answer: it stays, as on mlx5_ib */
	if (count < size) {
		spin_unlock(&file->lock);
		return -ENOSPC;
	}
	list_del(&a->list);
	file->bytes -= a->outlen;
	spin_unlock(&file->lock);

	if (copy_to_user(buf, &a->hdr, size))
		size = -EFAULT;
	kvfree(a);
	return size;
}

static __poll_t devx_async_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct mlx5sp_devx_async_file *file = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &file->poll_wait, wait);
	spin_lock(&file->lock);
	if (file->destroyed)
		mask = EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	else if (!list_empty(&file->queue))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&file->lock);
	return mask;
}

static const struct file_operations devx_async_fops = {
	.owner = THIS_MODULE,
	.read = devx_async_read,
	.poll = devx_async_poll,
	.release = uverbs_uobject_fd_release,
};

static bool devx_async_idle(struct mlx5sp_devx_async_file *file)
{
	bool idle;

	spin_lock(&file->lock);
	idle = !file->inflight;
	spin_unlock(&file->lock);
	return idle;
}

/*
 * Closed, or the context or device goes: readers are woken (-EIO), the
 * commands in flight are waited for (a command ends within cmd.c's
 * timeout, at once on a dead device), then every answer is freed.
 */
static void devx_async_file_destroy(struct ib_uobject *uobj,
				    enum rdma_remove_reason why)
{
	struct mlx5sp_devx_async_file *file =
		container_of(uobj, struct mlx5sp_devx_async_file, uobj);
	struct mlx5sp_devx_async_answer *a, *tmp;
	LIST_HEAD(answers);

	spin_lock(&file->lock);
	file->destroyed = true;
	spin_unlock(&file->lock);
	wake_up_interruptible(&file->poll_wait);

	wait_event(file->poll_wait, devx_async_idle(file));

	spin_lock(&file->lock);
	list_splice_init(&file->queue, &answers);
	file->bytes = 0;
	spin_unlock(&file->lock);
	list_for_each_entry_safe(a, tmp, &answers, list)
		kvfree(a);
}

static int
UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_ASYNC_CMD_FD_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
				MLX5_IB_ATTR_DEVX_ASYNC_CMD_FD_ALLOC_HANDLE);
	struct mlx5sp_devx_async_file *file =
		container_of(uobj, struct mlx5sp_devx_async_file, uobj);
	struct ib_ucontext *uc = ib_uverbs_get_ucontext(attrs);

	if (IS_ERR(uc))
		return PTR_ERR(uc);
	if (!to_uctx(uc)->devx_uid)
		return -EINVAL;
	file->dev = to_ibdev(uc->device);
	spin_lock_init(&file->lock);
	INIT_LIST_HEAD(&file->queue);
	init_waitqueue_head(&file->poll_wait);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_ASYNC_CMD_FD_ALLOC,
			    UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_ASYNC_CMD_FD_ALLOC_HANDLE,
					   MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
					   UVERBS_ACCESS_NEW, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
			    UVERBS_TYPE_ALLOC_FD(sizeof(struct mlx5sp_devx_async_file),
						 devx_async_file_destroy,
						 &devx_async_fops, "[devx_async_cmd]",
						 O_RDONLY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_ASYNC_CMD_FD_ALLOC));

static bool devx_async_supported(struct ib_device *ibdev)
{
	return MLX5SP_CAP_GEN(to_ibdev(ibdev), log_max_uctx);
}

const struct uapi_definition mlx5sp_devx_async_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
				      UAPI_DEF_IS_OBJ_SUPPORTED(devx_async_supported)),
	{}
};
