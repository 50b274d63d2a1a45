// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DEVX event channels, as mlx5_ib offers them to libmlx5
 * (mlx5dv_devx_create_event_channel, mlx5dv_devx_subscribe_devx_event,
 * mlx5dv_devx_get_event): a file a DEVX context reads device events from.
 *
 * A subscription names event numbers, of one DEVX object of the context
 * (a QP's SQ_DRAINED, a CQ's completion ...) or of none (a port change),
 * a cookie, or an eventfd to signal instead. Without data each read gives
 * the cookie of one subscription with events pending (events coalesce);
 * with data, the cookie and the whole EQE, one read an event. Events are
 * kept until read, up to a bound; what does not fit (or finds no memory)
 * makes the next read fail with -EOVERFLOW, so nothing is lost silently.
 *
 * Events come from the async and completion EQs (eq.c, through the event
 * listener) in interrupt context: subscriptions are on one list of the
 * device under a spinlock; each event file has its own.
 */
#include <linux/eventfd.h>
#include <linux/poll.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME mlx5sp_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "ib.h"

#define DEVX_SUB_MAX_EVENTS	16	/* event numbers per subscribe call */
#define DEVX_EVENTS_MAX		4096	/* events a file keeps unread */
#define DEVX_SUBS_MAX		4096	/* subscriptions of a device */

/*
 * Locking: dev->devx_ev_lock (any context) protects dev->devx_subs,
 * dev->devx_nsubs and each subscription's place on the list; file->lock protects the file's queue,
 * nqueued, overflow and destroyed, and a subscription's place in that
 * queue (omit_data). Order: devx_ev_lock, then file->lock.
 */
struct mlx5sp_devx_event_file {
	struct ib_uobject uobj;
	struct mlx5sp_ib_dev *dev;
	spinlock_t lock;		/* see above */
	struct list_head queue;		/* events, or subscriptions (omit_data) */
	unsigned int nqueued;
	wait_queue_head_t poll_wait;
	bool omit_data;
	bool overflow;
	bool destroyed;
};

struct mlx5sp_devx_sub {
	struct list_head dev_list;	/* in dev->devx_subs */
	struct list_head queued;	/* in file->queue (omit_data) */
	struct mlx5sp_devx_event_file *file;	/* holds a uobject reference */
	const void *obj;		/* the DEVX object, or NULL */
	u64 obj_id;			/* its devx id (opcode << 32 | id) */
	u64 cookie;
	struct eventfd_ctx *eventfd;
	u16 event;
};

struct mlx5sp_devx_event {
	struct list_head list;
	struct mlx5_ib_uapi_devx_async_event_hdr hdr;
	struct mlx5_eqe eqe;		/* hdr.out_data */
};

static bool devx_event_unaffiliated(u16 event)
{
	return event == MLX5_EVENT_TYPE_PORT_CHANGE;
}

/*
 * The kind of object an event number is about (mlx5_ib's legacy numbers),
 * as the opcode that creates it; 0: none (unaffiliated or not offered).
 */
static u16 devx_event_obj_kind(u16 event)
{
	switch (event) {
	case MLX5_EVENT_TYPE_PATH_MIG:
	case MLX5_EVENT_TYPE_COMM_EST:
	case MLX5_EVENT_TYPE_SQ_DRAINED:
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
		return MLX5_CMD_OP_CREATE_QP;
	case MLX5_EVENT_TYPE_COMP:
	case MLX5_EVENT_TYPE_CQ_ERROR:
		return MLX5_CMD_OP_CREATE_CQ;
	default:
		return 0;
	}
}

/* The object an EQE is about, as a devx id; 0: none (unaffiliated). */
static u64 devx_event_obj_id(const struct mlx5_eqe *eqe)
{
	u32 n;

	switch (devx_event_obj_kind(eqe->type)) {
	case MLX5_CMD_OP_CREATE_QP:
		if (eqe->data.qp_srq.type != MLX5_EVENT_QUEUE_TYPE_QP)
			return 0;
		n = be32_to_cpu(eqe->data.qp_srq.qp_srq_n);
		return mlx5sp_devx_enc_id(MLX5_CMD_OP_CREATE_QP, n & 0xffffff);
	case MLX5_CMD_OP_CREATE_CQ:
		n = eqe->type == MLX5_EVENT_TYPE_COMP ?
		    be32_to_cpu(eqe->data.comp.cqn) :
		    be32_to_cpu(eqe->data.cq_err.cqn);
		return mlx5sp_devx_enc_id(MLX5_CMD_OP_CREATE_CQ, n & 0xffffff);
	default:
		return 0;
	}
}

/* Called with dev->devx_ev_lock held; any context. */
static void devx_event_deliver(struct mlx5sp_devx_sub *sub,
			       const struct mlx5_eqe *eqe)
{
	struct mlx5sp_devx_event_file *file = sub->file;
	struct mlx5sp_devx_event *ev = NULL;
	unsigned long flags;

	if (sub->eventfd) {
		eventfd_signal(sub->eventfd);
		return;
	}
	if (!file->omit_data) {
		ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
		if (ev) {
			ev->hdr.cookie = sub->cookie;
			ev->eqe = *eqe;
		}
	}
	spin_lock_irqsave(&file->lock, flags);
	if (file->destroyed) {
		kfree(ev);
	} else if (file->omit_data) {
		/* one entry per subscription until it is read */
		if (list_empty(&sub->queued))
			list_add_tail(&sub->queued, &file->queue);
	} else if (!ev || file->nqueued >= DEVX_EVENTS_MAX) {
		file->overflow = true;
		kfree(ev);
	} else {
		list_add_tail(&ev->list, &file->queue);
		file->nqueued++;
	}
	spin_unlock_irqrestore(&file->lock, flags);
	wake_up_interruptible(&file->poll_wait);
}

/* An EQE of the device: to the DEVX subscriptions it matches. Any context. */
void mlx5sp_devx_event(struct mlx5sp_ib_dev *dev, const struct mlx5_eqe *eqe)
{
	u64 obj_id = devx_event_obj_id(eqe);
	struct mlx5sp_devx_sub *sub;
	unsigned long flags;

	if (!obj_id && !devx_event_unaffiliated(eqe->type))
		return;
	spin_lock_irqsave(&dev->devx_ev_lock, flags);
	list_for_each_entry(sub, &dev->devx_subs, dev_list)
		if (sub->event == eqe->type && sub->obj_id == obj_id)
			devx_event_deliver(sub, eqe);
	spin_unlock_irqrestore(&dev->devx_ev_lock, flags);
}

static void devx_sub_free(struct mlx5sp_devx_sub *sub)
{
	if (sub->eventfd)
		eventfd_ctx_put(sub->eventfd);
	uverbs_uobject_put(&sub->file->uobj);
	kfree(sub);
}

/* Off the device's list and its file's queue; the caller frees it. */
static void devx_sub_unlink(struct mlx5sp_ib_dev *dev,
			    struct mlx5sp_devx_sub *sub)
{
	lockdep_assert_held(&dev->devx_ev_lock);
	list_del(&sub->dev_list);
	dev->devx_nsubs--;
	spin_lock(&sub->file->lock);
	list_del_init(&sub->queued);
	spin_unlock(&sub->file->lock);
}

/*
 * Off the device's list: the subscriptions of @file or of @obj (one is
 * NULL), onto @dead for devx_subs_free(). devx_ev_lock held.
 */
static void devx_subs_take(struct mlx5sp_ib_dev *dev,
			   const struct mlx5sp_devx_event_file *file,
			   const void *obj, struct list_head *dead)
{
	struct mlx5sp_devx_sub *sub, *tmp;

	list_for_each_entry_safe(sub, tmp, &dev->devx_subs, dev_list) {
		if (file ? sub->file != file : sub->obj != obj)
			continue;
		devx_sub_unlink(dev, sub);
		list_add(&sub->dev_list, dead);
	}
}

static void devx_subs_free(struct list_head *dead)
{
	struct mlx5sp_devx_sub *sub, *tmp;

	list_for_each_entry_safe(sub, tmp, dead, dev_list)
		devx_sub_free(sub);
}

/* A DEVX object is destroyed: its subscriptions end with it. */
void mlx5sp_devx_event_obj_gone(struct mlx5sp_ib_dev *dev, const void *obj)
{
	LIST_HEAD(dead);

	spin_lock_irq(&dev->devx_ev_lock);
	devx_subs_take(dev, NULL, obj, &dead);
	spin_unlock_irq(&dev->devx_ev_lock);
	devx_subs_free(&dead);
}

static ssize_t devx_event_read(struct file *filp, char __user *buf,
			       size_t count, loff_t *pos)
{
	struct mlx5sp_devx_event_file *file = filp->private_data;
	struct mlx5sp_devx_event *ev = NULL;
	struct mlx5sp_devx_sub *sub;
	size_t size;
	u64 cookie;

	size = file->omit_data ? sizeof(cookie) : sizeof(ev->hdr) + sizeof(ev->eqe);
	if (count < size)
		return -EINVAL;
	spin_lock_irq(&file->lock);
	while (list_empty(&file->queue) && !file->overflow) {
		spin_unlock_irq(&file->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->poll_wait,
					     !list_empty(&file->queue) ||
					     file->overflow ||
					     file->destroyed))
			return -ERESTARTSYS;
		spin_lock_irq(&file->lock);
		if (file->destroyed) {
			spin_unlock_irq(&file->lock);
			return -EIO;
		}
	}
	if (file->overflow) {
		file->overflow = false;
		spin_unlock_irq(&file->lock);
		return -EOVERFLOW;
	}
	if (file->omit_data) {
		sub = list_first_entry(&file->queue, struct mlx5sp_devx_sub,
				       queued);
		list_del_init(&sub->queued);
		cookie = sub->cookie;
	} else {
		ev = list_first_entry(&file->queue, struct mlx5sp_devx_event,
				      list);
		list_del(&ev->list);
		file->nqueued--;
	}
	spin_unlock_irq(&file->lock);

	if (copy_to_user(buf, ev ? (void *)&ev->hdr : (void *)&cookie, size))
		size = -EFAULT;
	kfree(ev);
	return size;
}

static __poll_t devx_event_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct mlx5sp_devx_event_file *file = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &file->poll_wait, wait);
	spin_lock_irq(&file->lock);
	if (file->destroyed)
		mask = EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	else if (!list_empty(&file->queue) || file->overflow)
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&file->lock);
	return mask;
}

static const struct file_operations devx_event_fops = {
	.owner = THIS_MODULE,
	.read = devx_event_read,
	.poll = devx_event_poll,
	.release = uverbs_uobject_fd_release,
};

/* Closed, or the context or device goes: subscriptions and events too. */
static void devx_event_file_destroy(struct ib_uobject *uobj,
				    enum rdma_remove_reason why)
{
	struct mlx5sp_devx_event_file *file =
		container_of(uobj, struct mlx5sp_devx_event_file, uobj);
	struct mlx5sp_ib_dev *dev = file->dev;
	struct mlx5sp_devx_event *ev, *etmp;
	LIST_HEAD(events);
	LIST_HEAD(dead);

	spin_lock_irq(&dev->devx_ev_lock);
	devx_subs_take(dev, file, NULL, &dead);
	spin_lock(&file->lock);
	file->destroyed = true;
	if (!file->omit_data)
		list_splice_init(&file->queue, &events);
	file->nqueued = 0;
	spin_unlock(&file->lock);
	spin_unlock_irq(&dev->devx_ev_lock);
	wake_up_interruptible(&file->poll_wait);

	list_for_each_entry_safe(ev, etmp, &events, list)
		kfree(ev);
	/* each holds a reference on uobj: the file memory outlives this */
	devx_subs_free(&dead);
}

static int
UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_ASYNC_EVENT_FD_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
				MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_HANDLE);
	struct mlx5sp_devx_event_file *file =
		container_of(uobj, struct mlx5sp_devx_event_file, uobj);
	struct ib_ucontext *uc = ib_uverbs_get_ucontext(attrs);
	u32 flags;
	int err;

	if (IS_ERR(uc))
		return PTR_ERR(uc);
	if (!to_uctx(uc)->devx_uid)
		return -EINVAL;
	err = uverbs_get_flags32(&flags, attrs,
				 MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_FLAGS,
				 MLX5_IB_UAPI_DEVX_CR_EV_CH_FLAGS_OMIT_DATA);
	if (err)
		return err;
	file->dev = to_ibdev(uc->device);
	spin_lock_init(&file->lock);
	INIT_LIST_HEAD(&file->queue);
	init_waitqueue_head(&file->poll_wait);
	file->omit_data = flags & MLX5_IB_UAPI_DEVX_CR_EV_CH_FLAGS_OMIT_DATA;
	return 0;
}

/* Every event number fits the object (or, without one, is unaffiliated). */
static bool devx_events_valid(const u16 *events, int n, u64 obj_id)
{
	int i;

	for (i = 0; i < n; i++) {
		if (obj_id ? devx_event_obj_kind(events[i]) != obj_id >> 32 :
			     !devx_event_unaffiliated(events[i]))
			return false;
	}
	return true;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_SUBSCRIBE_EVENT)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *obj_uobj = uverbs_attr_get_uobject(attrs,
				MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_OBJ_HANDLE);
	struct ib_uobject *fd_uobj = uverbs_attr_get_uobject(attrs,
				MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_HANDLE);
	const u16 list_attr = MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_TYPE_NUM_LIST;
	struct ib_ucontext *uc = ib_uverbs_get_ucontext(attrs);
	struct mlx5sp_devx_event_file *file;
	struct mlx5sp_devx_sub *sub;
	struct eventfd_ctx *efd = NULL;
	const void *obj = NULL;
	struct mlx5sp_ib_dev *dev;
	u64 cookie = 0, obj_id = 0;
	bool use_fd = false;
	LIST_HEAD(subs);
	const u16 *events;
	int n, i, err;
	s32 redirect;

	if (IS_ERR(uc))
		return PTR_ERR(uc);
	if (!to_uctx(uc)->devx_uid)
		return -EINVAL;
	if (IS_ERR(fd_uobj))
		return PTR_ERR(fd_uobj);
	dev = to_ibdev(uc->device);
	file = container_of(fd_uobj, struct mlx5sp_devx_event_file, uobj);
	if (!IS_ERR(obj_uobj)) {
		obj = obj_uobj->object;
		obj_id = mlx5sp_devx_obj_id(obj);
	}
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_NUM)) {
		err = uverbs_copy_from(&redirect, attrs,
				       MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_NUM);
		if (err)
			return err;
		use_fd = true;
	}
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_COOKIE)) {
		/* an eventfd carries no cookie */
		if (use_fd)
			return -EINVAL;
		err = uverbs_copy_from(&cookie, attrs,
				       MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_COOKIE);
		if (err)
			return err;
	}
	n = uverbs_attr_ptr_get_array_size(attrs, list_attr, sizeof(u16));
	if (n < 0)
		return n;
	if (!n || n > DEVX_SUB_MAX_EVENTS)
		return -EINVAL;
	events = uverbs_attr_get_alloced_ptr(attrs, list_attr);
	if (!devx_events_valid(events, n, obj_id))
		return -EINVAL;

	for (i = 0; i < n; i++) {
		sub = kzalloc(sizeof(*sub), GFP_KERNEL);
		if (!sub) {
			err = -ENOMEM;
			goto err_free;
		}
		if (use_fd) {
			efd = eventfd_ctx_fdget(redirect);
			if (IS_ERR(efd)) {
				err = PTR_ERR(efd);
				kfree(sub);
				goto err_free;
			}
		}
		INIT_LIST_HEAD(&sub->queued);
		sub->file = file;
		uverbs_uobject_get(&file->uobj);
		sub->obj = obj;
		sub->obj_id = obj_id;
		sub->cookie = cookie;
		sub->eventfd = use_fd ? efd : NULL;
		sub->event = events[i];
		list_add_tail(&sub->dev_list, &subs);
	}
	/*
	 * All or nothing: a subscription is live once it is on the list. The
	 * list is walked for every event, so a device keeps a bounded number;
	 * a file already closed (the context going) takes no more.
	 */
	spin_lock_irq(&dev->devx_ev_lock);
	spin_lock(&file->lock);
	err = file->destroyed ? -EIO : 0;
	spin_unlock(&file->lock);
	if (!err && dev->devx_nsubs + n > DEVX_SUBS_MAX)
		err = -ENOSPC;
	if (!err) {
		list_splice_tail(&subs, &dev->devx_subs);
		dev->devx_nsubs += n;
	}
	spin_unlock_irq(&dev->devx_ev_lock);
	if (err)
		goto err_free;
	return 0;

err_free:
	devx_subs_free(&subs);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_SUBSCRIBE_EVENT,
			    UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_HANDLE,
					   MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
					   UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_OBJ_HANDLE,
					    MLX5_IB_OBJECT_DEVX_OBJ,
					    UVERBS_ACCESS_READ, UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_TYPE_NUM_LIST,
					       UVERBS_ATTR_MIN_SIZE(sizeof(u16)),
					       UA_MANDATORY, UA_ALLOC_AND_COPY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_COOKIE,
					       UVERBS_ATTR_TYPE(u64), UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_SUBSCRIBE_EVENT_FD_NUM,
					       UVERBS_ATTR_TYPE(u32), UA_OPTIONAL));

DECLARE_UVERBS_GLOBAL_METHODS(MLX5_IB_OBJECT_DEVX,
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_SUBSCRIBE_EVENT));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_ASYNC_EVENT_FD_ALLOC,
			    UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_HANDLE,
					   MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
					   UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(MLX5_IB_ATTR_DEVX_ASYNC_EVENT_FD_ALLOC_FLAGS,
						 enum mlx5_ib_uapi_devx_create_event_channel_flags,
						 UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
			    UVERBS_TYPE_ALLOC_FD(sizeof(struct mlx5sp_devx_event_file),
						 devx_event_file_destroy,
						 &devx_event_fops, "[devx_async_event]",
						 O_RDONLY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_ASYNC_EVENT_FD_ALLOC));

static bool devx_event_supported(struct ib_device *ibdev)
{
	return MLX5SP_CAP_GEN(to_ibdev(ibdev), log_max_uctx);
}

const struct uapi_definition mlx5sp_devx_event_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX,
				      UAPI_DEF_IS_OBJ_SUPPORTED(devx_event_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_ASYNC_EVENT_FD,
				      UAPI_DEF_IS_OBJ_SUPPORTED(devx_event_supported)),
	{}
};
