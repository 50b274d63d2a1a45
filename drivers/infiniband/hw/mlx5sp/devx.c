// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DEVX: PRM commands from user space, as mlx5_ib offers them to libmlx5
 * (<rdma/mlx5_user_ioctl_cmds.h>). A DEVX user context has a firmware uid
 * (CREATE_UCTX); the driver stamps it into every command it passes on,
 * never trusting the one in the user's mailbox, and firmware confines the
 * uid to its own objects. On top of that the driver decides which commands
 * go through at all:
 *
 * - DEVX_OTHER: general commands (queries of the device and the port), on
 *   mlx5_ib's allowlist;
 * - DEVX_OBJ_CREATE: the object kinds mlx5sp implements (PD, transport
 *   domain, CQ, QP, MTT and KLM MKEY, PSV); buffers and doorbell records
 *   come only from registered user memory (umem_valid is forced; a KLM key
 *   has no memory of its own), and the destroy command is built by the
 *   driver from the create command and its output;
 * - DEVX_OBJ_MODIFY/QUERY: commands on a DEVX object or a verbs CQ or QP,
 *   which must name exactly that object; DEVX_OBJ_ASYNC_QUERY, the same
 *   query answered on an async command file (devx_async.c);
 * - DEVX_UMEM_REG/DEREG: pinned user memory described to firmware;
 * - QUERY_EQN and QUERY_UAR;
 * - event channels and subscriptions: devx_event.c.
 *
 * Object kinds of mlx5_ib's DEVX that mlx5sp does not implement are refused
 * with -EOPNOTSUPP, and so is a command the device answers with "bad
 * opcode"; any other failed status reaches libmlx5 as -EREMOTEIO with the
 * output, as from mlx5_ib.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME mlx5sp_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "ib.h"

#define DEVX_DESTROY_IN_DW	MLX5_ST_SZ_DW(general_obj_in_cmd_hdr)
/* A command mailbox holds at least the common header. */
#define DEVX_CMD_IN_MIN	UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_in_cmd_hdr))
#define DEVX_CMD_OUT_MIN UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_out_cmd_hdr))

/* A firmware object a DEVX context created; its destroy command is ready. */
struct mlx5sp_devx_obj {
	struct mlx5sp_ib_dev *dev;
	u64 obj_id;			/* creating opcode << 32 | object id */
	u32 dinlen;
	u32 dinbox[DEVX_DESTROY_IN_DW];
};

struct mlx5sp_devx_umem {
	struct mlx5sp_ib_dev *dev;
	struct ib_umem *umem;
	u32 dinbox[DEVX_DESTROY_IN_DW];
};

int mlx5sp_devx_create_uctx(struct mlx5sp_ib_dev *dev, u16 *uid)
{
	u32 out[MLX5_ST_SZ_DW(create_uctx_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_uctx_in)] = {};
	int err;

	if (!MLX5SP_CAP_GEN(dev, log_max_uctx))
		return -EOPNOTSUPP;
	/* No uctx caps (raw TX, internal resources): mlx5sp has no use for them. */
	MLX5_SET(create_uctx_in, in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	err = mlx5sp_cmd_exec_inout(dev->mdev, create_uctx, in, out);
	if (err)
		return err;
	*uid = MLX5_GET(create_uctx_out, out, uid);
	return 0;
}

void mlx5sp_devx_destroy_uctx(struct mlx5sp_ib_dev *dev, u16 uid)
{
	u32 in[MLX5_ST_SZ_DW(destroy_uctx_in)] = {};

	MLX5_SET(destroy_uctx_in, in, opcode, MLX5_CMD_OP_DESTROY_UCTX);
	MLX5_SET(destroy_uctx_in, in, uid, uid);
	mlx5sp_cmd_exec_in(dev->mdev, destroy_uctx, in);
}

static u16 devx_opcode(const void *in)
{
	return MLX5_GET(general_obj_in_cmd_hdr, in, opcode);
}

static u64 devx_enc_id(u16 opcode, u32 id)
{
	return mlx5sp_devx_enc_id(opcode, id);
}

/* The devx id of a DEVX object (its uobject's object). */
u64 mlx5sp_devx_obj_id(const void *obj)
{
	return ((const struct mlx5sp_devx_obj *)obj)->obj_id;
}

/* Queries of the device and the port any DEVX context may make. */
bool mlx5sp_devx_is_general_cmd(const void *in)
{
	switch (devx_opcode(in)) {
	case MLX5_CMD_OP_QUERY_HCA_CAP:
	case MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT:
	case MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT:
	case MLX5_CMD_OP_QUERY_VPORT_STATE:
	case MLX5_CMD_OP_QUERY_ADAPTER:
	case MLX5_CMD_OP_QUERY_ISSI:
	case MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
	case MLX5_CMD_OP_QUERY_ROCE_ADDRESS:
	case MLX5_CMD_OP_QUERY_VNIC_ENV:
	case MLX5_CMD_OP_QUERY_VPORT_COUNTER:
	case MLX5_CMD_OP_GET_DROPPED_PACKET_LOG:
	case MLX5_CMD_OP_NOP:
	case MLX5_CMD_OP_QUERY_CONG_STATUS:
	case MLX5_CMD_OP_QUERY_CONG_PARAMS:
	case MLX5_CMD_OP_QUERY_CONG_STATISTICS:
	case MLX5_CMD_OP_QUERY_LAG:
	case MLX5_CMD_OP_QUERY_ESW_FUNCTIONS:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_GPL(mlx5sp_devx_is_general_cmd);

/*
 * Run a user's command with its uid. A status the device does not know the
 * opcode for is -EOPNOTSUPP; another failed status -EREMOTEIO (the output
 * holds status and syndrome for libmlx5).
 */
static int devx_cmd(struct mlx5sp_ib_dev *dev, void *in, int inlen, void *out,
		    int outlen)
{
	int err = mlx5sp_cmd_exec(dev->mdev, in, inlen, out, outlen);

	if (!err || !MLX5SP_CMD_STATUS(out))
		return err;
	if (MLX5SP_CMD_STATUS(out) == MLX5_CMD_STAT_BAD_OP_ERR)
		return -EOPNOTSUPP;
	return -EREMOTEIO;
}

static struct mlx5sp_ucontext *devx_uctx(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *uc = ib_uverbs_get_ucontext(attrs);

	if (IS_ERR(uc))
		return ERR_CAST(uc);
	if (!to_uctx(uc)->devx_uid)
		return ERR_PTR(-EINVAL);
	return to_uctx(uc);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_QUERY_EQN)(struct uverbs_attr_bundle *attrs)
{
	struct mlx5sp_ucontext *c;
	u32 vector, eqn;
	int err;

	c = devx_uctx(attrs);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (uverbs_copy_from(&vector, attrs, MLX5_IB_ATTR_DEVX_QUERY_EQN_USER_VEC))
		return -EFAULT;
	if (vector > U16_MAX)
		return -EINVAL;
	err = mlx5sp_comp_eqn(to_ibdev(c->ibuc.device)->mdev, vector, &eqn);
	if (err)
		return err;
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_QUERY_EQN_DEV_EQN, &eqn,
			      sizeof(eqn));
}

/*
 * The UAR of a static bfreg: contexts have dynamic UARs only, whose index
 * MLX5_IB_METHOD_UAR_OBJ_ALLOC returns; there is no bfreg to translate.
 */
static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_QUERY_UAR)(struct uverbs_attr_bundle *attrs)
{
	struct mlx5sp_ucontext *c;
	u32 user_idx;

	c = devx_uctx(attrs);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (uverbs_copy_from(&user_idx, attrs, MLX5_IB_ATTR_DEVX_QUERY_UAR_USER_IDX))
		return -EFAULT;
	return -EINVAL;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OTHER)(struct uverbs_attr_bundle *attrs)
{
	void *in = uverbs_attr_get_alloced_ptr(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN);
	int inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN);
	int outlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT);
	struct mlx5sp_ucontext *c;
	void *out;
	int err, err2;

	c = devx_uctx(attrs);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (MLX5_GET(general_obj_in_cmd_hdr, in, vhca_tunnel_id) ||
	    !mlx5sp_devx_is_general_cmd(in))
		return -EINVAL;
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	MLX5_SET(general_obj_in_cmd_hdr, in, uid, c->devx_uid);
	err = devx_cmd(to_ibdev(c->ibuc.device), in, inlen, out, outlen);
	if (err && err != -EREMOTEIO)
		return err;
	err2 = uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, out, outlen);
	return err2 ?: err;
}

/*
 * Object creation mlx5sp implements: 1, refused as not implemented: 0,
 * not an object creation at all: -EINVAL. MKEYs: MTT over a umem only
 * (indirect MKEYs come with UMR).
 */
static int devx_create_offered(const void *in, int inlen)
{
	const void *mkc;
	u8 mode;

	switch (devx_opcode(in)) {
	case MLX5_CMD_OP_ALLOC_PD:
	case MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
	case MLX5_CMD_OP_CREATE_CQ:
	case MLX5_CMD_OP_CREATE_QP:
		return 1;
	case MLX5_CMD_OP_CREATE_PSV:
		if (inlen < MLX5_ST_SZ_BYTES(create_psv_in))
			return -EINVAL;
		/* one PSV per object: its destroy command names one */
		return MLX5_GET(create_psv_in, in, num_psv) == 1 ? 1 : -EINVAL;
	case MLX5_CMD_OP_CREATE_MKEY:
		if (inlen < MLX5_ST_SZ_BYTES(create_mkey_in))
			return -EINVAL;
		mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
		mode = MLX5_GET(mkc, mkc, access_mode_4_2) << 2 |
		       MLX5_GET(mkc, mkc, access_mode_1_0);
		/* MTT over a umem; KLM (indirect, signature) keys get UMRs */
		return mode == MLX5_MKC_ACCESS_MODE_MTT ||
		       mode == MLX5_MKC_ACCESS_MODE_KLMS;
	case MLX5_CMD_OP_CREATE_GENERAL_OBJECT:
	case MLX5_CMD_OP_CREATE_RMP:
	case MLX5_CMD_OP_CREATE_SQ:
	case MLX5_CMD_OP_CREATE_RQ:
	case MLX5_CMD_OP_CREATE_RQT:
	case MLX5_CMD_OP_CREATE_TIR:
	case MLX5_CMD_OP_CREATE_TIS:
	case MLX5_CMD_OP_ALLOC_Q_COUNTER:
	case MLX5_CMD_OP_CREATE_FLOW_TABLE:
	case MLX5_CMD_OP_CREATE_FLOW_GROUP:
	case MLX5_CMD_OP_ALLOC_FLOW_COUNTER:
	case MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT:
	case MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT:
	case MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT:
	case MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT:
	case MLX5_CMD_OP_SET_L2_TABLE_ENTRY:
	case MLX5_CMD_OP_CREATE_SRQ:
	case MLX5_CMD_OP_CREATE_XRC_SRQ:
	case MLX5_CMD_OP_CREATE_DCT:
	case MLX5_CMD_OP_CREATE_XRQ:
	case MLX5_CMD_OP_ATTACH_TO_MCG:
	case MLX5_CMD_OP_ALLOC_XRCD:
	case MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY:
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * A user names memory by umem only: never by an address of its choosing.
 * The umem-valid bits sit deep in the layouts: a command shorter than its
 * layout is refused, before they are set beyond the end of its buffer.
 */
static int devx_set_umem_valid(void *in, int inlen)
{
	void *ctx;

	switch (devx_opcode(in)) {
	case MLX5_CMD_OP_CREATE_MKEY:
		if (inlen < MLX5_ST_SZ_BYTES(create_mkey_in))
			return -EINVAL;
		ctx = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
		MLX5_SET(create_mkey_in, in, mkey_umem_valid,
			 MLX5_GET(mkc, ctx, access_mode_1_0) !=
			 MLX5_MKC_ACCESS_MODE_KLMS);
		break;
	case MLX5_CMD_OP_CREATE_CQ:
		if (inlen < MLX5_ST_SZ_BYTES(create_cq_in))
			return -EINVAL;
		MLX5_SET(create_cq_in, in, cq_umem_valid, 1);
		ctx = MLX5_ADDR_OF(create_cq_in, in, cq_context);
		MLX5_SET(cqc, ctx, dbr_umem_valid, 1);
		break;
	case MLX5_CMD_OP_CREATE_QP:
		if (inlen < MLX5_ST_SZ_BYTES(create_qp_in))
			return -EINVAL;
		ctx = MLX5_ADDR_OF(create_qp_in, in, qpc);
		MLX5_SET(qpc, ctx, dbr_umem_valid, 1);
		MLX5_SET(create_qp_in, in, wq_umem_valid, 1);
		break;
	case MLX5_CMD_OP_MODIFY_CQ:
		if (inlen < MLX5_ST_SZ_BYTES(modify_cq_in))
			return -EINVAL;
		MLX5_SET(modify_cq_in, in, cq_umem_valid, 1);
		break;
	default:
		break;
	}
	return 0;
}

/* The id firmware gave the object, and the command that destroys it. */
static void devx_build_destroy(const void *in, const void *out,
			       struct mlx5sp_devx_obj *obj)
{
	u16 opcode = devx_opcode(in);
	u32 *din = obj->dinbox;
	u32 id;

	obj->dinlen = sizeof(obj->dinbox);
	MLX5_SET(general_obj_in_cmd_hdr, din, uid,
		 MLX5_GET(general_obj_in_cmd_hdr, in, uid));
	switch (opcode) {
	case MLX5_CMD_OP_ALLOC_PD:
		id = MLX5_GET(alloc_pd_out, out, pd);
		MLX5_SET(dealloc_pd_in, din, opcode, MLX5_CMD_OP_DEALLOC_PD);
		MLX5_SET(dealloc_pd_in, din, pd, id);
		break;
	case MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
		id = MLX5_GET(alloc_transport_domain_out, out, transport_domain);
		MLX5_SET(dealloc_transport_domain_in, din, opcode,
			 MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN);
		MLX5_SET(dealloc_transport_domain_in, din, transport_domain, id);
		break;
	case MLX5_CMD_OP_CREATE_CQ:
		id = MLX5_GET(create_cq_out, out, cqn);
		MLX5_SET(destroy_cq_in, din, opcode, MLX5_CMD_OP_DESTROY_CQ);
		MLX5_SET(destroy_cq_in, din, cqn, id);
		break;
	case MLX5_CMD_OP_CREATE_QP:
		id = MLX5_GET(create_qp_out, out, qpn);
		MLX5_SET(destroy_qp_in, din, opcode, MLX5_CMD_OP_DESTROY_QP);
		MLX5_SET(destroy_qp_in, din, qpn, id);
		break;
	case MLX5_CMD_OP_CREATE_MKEY:
		id = MLX5_GET(create_mkey_out, out, mkey_index);
		MLX5_SET(destroy_mkey_in, din, opcode, MLX5_CMD_OP_DESTROY_MKEY);
		MLX5_SET(destroy_mkey_in, din, mkey_index, id);
		break;
	case MLX5_CMD_OP_CREATE_PSV:
		id = MLX5_GET(create_psv_out, out, psv0_index);
		MLX5_SET(destroy_psv_in, din, opcode, MLX5_CMD_OP_DESTROY_PSV);
		MLX5_SET(destroy_psv_in, din, psvn, id);
		break;
	default:
		/* devx_create_offered() let only the kinds above through */
		id = 0;
		break;
	}
	obj->obj_id = devx_enc_id(opcode, id);
}

/*
 * An id firmware gave that names nothing (a lie, a corrupted output) is
 * taken as gone, or the context's close would fail on it for ever.
 */
static int devx_destroy(struct mlx5sp_devx_obj *obj)
{
	return mlx5sp_cmd_destroy(obj->dev->mdev, obj->dinbox, obj->dinlen,
				  "DEVX object", lower_32_bits(obj->obj_id));
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_CREATE)(struct uverbs_attr_bundle *attrs)
{
	void *in = uverbs_attr_get_alloced_ptr(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN);
	int inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN);
	int outlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT);
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
					MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE);
	struct mlx5sp_devx_obj *obj;
	struct mlx5sp_ucontext *c;
	struct mlx5sp_ib_dev *dev;
	int err, err2 = 0;
	void *out;

	c = devx_uctx(attrs);
	if (IS_ERR(c))
		return PTR_ERR(c);
	dev = to_ibdev(c->ibuc.device);
	if (MLX5_GET(general_obj_in_cmd_hdr, in, vhca_tunnel_id))
		return -EINVAL;
	err = devx_create_offered(in, inlen);
	if (err <= 0)
		return err ?: -EOPNOTSUPP;
	/*
	 * The id the destroy command is built from is in the output's
	 * first 16 bytes, which the attribute's minimum size guarantees.
	 */
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	err = devx_set_umem_valid(in, inlen);
	if (err)
		return err;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->dev = dev;

	MLX5_SET(general_obj_in_cmd_hdr, in, uid, c->devx_uid);
	err = devx_cmd(dev, in, inlen, out, outlen);
	if (err == -EREMOTEIO)
		err2 = uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT,
				      out, outlen);
	if (err)
		goto err_free;
	devx_build_destroy(in, out, obj);
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, out,
			     outlen);
	if (err)
		goto err_destroy;
	uobj->object = obj;
	return 0;

err_destroy:
	devx_destroy(obj);
err_free:
	kfree(obj);
	return err2 ?: err;
}

static int devx_obj_cleanup(struct ib_uobject *uobject,
			    enum rdma_remove_reason why,
			    struct uverbs_attr_bundle *attrs)
{
	struct mlx5sp_devx_obj *obj = uobject->object;
	int err;

	/*
	 * Still in use (a QP on this CQ ...): the object stays, and ib_core
	 * tries again once the others of the context are gone. A dead
	 * device's release commands succeed.
	 */
	err = devx_destroy(obj);
	if (err)
		return err;
	mlx5sp_devx_event_obj_gone(obj->dev, obj);
	kfree(obj);
	return 0;
}

/* The object a modify or query command names, encoded as devx_enc_id(). */
static u64 devx_named_obj_id(const void *in)
{
	switch (devx_opcode(in)) {
	case MLX5_CMD_OP_QUERY_MKEY:
		return devx_enc_id(MLX5_CMD_OP_CREATE_MKEY,
				   MLX5_GET(query_mkey_in, in, mkey_index));
	case MLX5_CMD_OP_QUERY_CQ:
		return devx_enc_id(MLX5_CMD_OP_CREATE_CQ,
				   MLX5_GET(query_cq_in, in, cqn));
	case MLX5_CMD_OP_MODIFY_CQ:
		return devx_enc_id(MLX5_CMD_OP_CREATE_CQ,
				   MLX5_GET(modify_cq_in, in, cqn));
	case MLX5_CMD_OP_QUERY_QP:
	case MLX5_CMD_OP_RST2INIT_QP:
	case MLX5_CMD_OP_INIT2INIT_QP:
	case MLX5_CMD_OP_INIT2RTR_QP:
	case MLX5_CMD_OP_RTR2RTS_QP:
	case MLX5_CMD_OP_RTS2RTS_QP:
	case MLX5_CMD_OP_SQERR2RTS_QP:
	case MLX5SP_CMD_OP_RTS2SQD_QP:
	case MLX5_CMD_OP_SQD_RTS_QP:
	case MLX5_CMD_OP_2ERR_QP:
	case MLX5_CMD_OP_2RST_QP:
		/* every QP command has qpn where QUERY_QP has it */
		return devx_enc_id(MLX5_CMD_OP_CREATE_QP,
				   MLX5_GET(query_qp_in, in, qpn));
	default:
		return 0;
	}
}

static bool devx_is_modify_cmd(const void *in)
{
	switch (devx_opcode(in)) {
	case MLX5_CMD_OP_MODIFY_CQ:
	case MLX5_CMD_OP_RST2INIT_QP:
	case MLX5_CMD_OP_INIT2INIT_QP:
	case MLX5_CMD_OP_INIT2RTR_QP:
	case MLX5_CMD_OP_RTR2RTS_QP:
	case MLX5_CMD_OP_RTS2RTS_QP:
	case MLX5_CMD_OP_SQERR2RTS_QP:
	case MLX5SP_CMD_OP_RTS2SQD_QP:
	case MLX5_CMD_OP_SQD_RTS_QP:
	case MLX5_CMD_OP_2ERR_QP:
	case MLX5_CMD_OP_2RST_QP:
		return true;
	default:
		return false;
	}
}

static bool devx_is_query_cmd(const void *in)
{
	switch (devx_opcode(in)) {
	case MLX5_CMD_OP_QUERY_MKEY:
	case MLX5_CMD_OP_QUERY_CQ:
	case MLX5_CMD_OP_QUERY_QP:
		return true;
	default:
		return false;
	}
}

/* The command names the object of the handle it came with, and no other. */
static bool devx_is_valid_obj_id(struct ib_uobject *uobj, const void *in)
{
	u64 id = devx_named_obj_id(in);

	if (!id)
		return false;
	switch (uobj_get_object_id(uobj)) {
	case UVERBS_OBJECT_CQ:
		return devx_enc_id(MLX5_CMD_OP_CREATE_CQ,
				   to_cq(uobj->object)->mcq.cqn) == id;
	case UVERBS_OBJECT_QP:
		return devx_enc_id(MLX5_CMD_OP_CREATE_QP,
				   to_qp(uobj->object)->ibqp.qp_num) == id;
	case MLX5_IB_OBJECT_DEVX_OBJ:
		return ((struct mlx5sp_devx_obj *)uobj->object)->obj_id == id;
	default:
		return false;
	}
}

/*
 * A modify or query on the object of @uobj, checked (the command is of its
 * kind and names that object) and given the context's uid: the same for
 * the synchronous commands and the asynchronous query.
 */
static struct mlx5sp_ucontext *devx_obj_cmd_prepare(struct uverbs_attr_bundle *attrs,
						    struct ib_uobject *uobj,
						    void *in, int inlen,
						    bool modify)
{
	struct mlx5sp_ucontext *c;
	int err;

	c = devx_uctx(attrs);
	if (IS_ERR(c))
		return c;
	if (MLX5_GET(general_obj_in_cmd_hdr, in, vhca_tunnel_id))
		return ERR_PTR(-EINVAL);
	if (modify ? !devx_is_modify_cmd(in) : !devx_is_query_cmd(in))
		return ERR_PTR(-EINVAL);
	if (!devx_is_valid_obj_id(uobj, in))
		return ERR_PTR(-EINVAL);
	if (modify) {
		err = devx_set_umem_valid(in, inlen);
		if (err)
			return ERR_PTR(err);
	}
	MLX5_SET(general_obj_in_cmd_hdr, in, uid, c->devx_uid);
	return c;
}

static int devx_obj_cmd(struct uverbs_attr_bundle *attrs, u16 handle_attr,
			u16 in_attr, u16 out_attr, bool modify)
{
	void *in = uverbs_attr_get_alloced_ptr(attrs, in_attr);
	int inlen = uverbs_attr_get_len(attrs, in_attr);
	int outlen = uverbs_attr_get_len(attrs, out_attr);
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, handle_attr);
	struct mlx5sp_ucontext *c;
	int err, err2;
	void *out;

	c = devx_obj_cmd_prepare(attrs, uobj, in, inlen, modify);
	if (IS_ERR(c))
		return PTR_ERR(c);
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	err = devx_cmd(to_ibdev(c->ibuc.device), in, inlen, out, outlen);
	if (err && err != -EREMOTEIO)
		return err;
	err2 = uverbs_copy_to(attrs, out_attr, out, outlen);
	return err2 ?: err;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_MODIFY)(struct uverbs_attr_bundle *attrs)
{
	return devx_obj_cmd(attrs, MLX5_IB_ATTR_DEVX_OBJ_MODIFY_HANDLE,
			    MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_IN,
			    MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_OUT, true);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_QUERY)(struct uverbs_attr_bundle *attrs)
{
	return devx_obj_cmd(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE,
			    MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN,
			    MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT, false);
}

/* The query's answer comes on an async command file (devx_async.c). */
static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_ASYNC_QUERY)(struct uverbs_attr_bundle *attrs)
{
	void *in = uverbs_attr_get_alloced_ptr(attrs,
				MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_CMD_IN);
	int inlen = uverbs_attr_get_len(attrs,
				MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_CMD_IN);
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
				MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_HANDLE);
	struct ib_uobject *fd_uobj = uverbs_attr_get_uobject(attrs,
				MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_FD);
	struct mlx5sp_ucontext *c;
	u16 outlen;
	u64 wr_id;
	int err;

	c = devx_obj_cmd_prepare(attrs, uobj, in, inlen, false);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = uverbs_get_const(&outlen, attrs,
			       MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_OUT_LEN);
	if (err)
		return err;
	err = uverbs_copy_from(&wr_id, attrs,
			       MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_WR_ID);
	if (err)
		return err;
	if (IS_ERR(fd_uobj))
		return PTR_ERR(fd_uobj);
	return mlx5sp_devx_async_query(fd_uobj, in, inlen, outlen, wr_id);
}

/* Pinned user memory, described to firmware in 4 KiB pages. */
static int devx_umem_create(struct mlx5sp_ib_dev *dev, u16 uid,
			    struct mlx5sp_devx_umem *obj, u32 *id)
{
	u32 out[MLX5_ST_SZ_DW(create_umem_out)] = {};
	struct ib_umem *umem = obj->umem;
	size_t n = ib_umem_num_dma_blocks(umem, MLX5_ADAPTER_PAGE_SIZE);
	struct ib_block_iter biter;
	void *in, *um, *mtt;
	size_t inlen, i = 0;
	int err;

	inlen = MLX5_ST_SZ_BYTES(create_umem_in) + n * MLX5_ST_SZ_BYTES(mtt);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	um = MLX5_ADDR_OF(create_umem_in, in, umem);
	MLX5_SET(create_umem_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	MLX5_SET(create_umem_in, in, uid, uid);
	MLX5_SET64(umem, um, num_of_mtt, n);
	MLX5_SET(umem, um, log_page_size, 0);	/* 4 KiB, relative to 4 KiB */
	MLX5_SET(umem, um, page_offset,
		 ib_umem_dma_offset(umem, MLX5_ADAPTER_PAGE_SIZE));
	rdma_umem_for_each_dma_block(umem, &biter, MLX5_ADAPTER_PAGE_SIZE) {
		u64 pa = rdma_block_iter_dma_address(&biter);

		mtt = MLX5_ADDR_OF(umem, um, mtt[i++]);
		MLX5_SET(mtt, mtt, ptag_63_32, upper_32_bits(pa));
		MLX5_SET(mtt, mtt, ptag_31_8, lower_32_bits(pa) >> 8);
		MLX5_SET(mtt, mtt, rd_en, 1);
		MLX5_SET(mtt, mtt, wr_en, umem->writable);
	}
	err = mlx5sp_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		return err;
	*id = MLX5_GET(create_umem_out, out, umem_id);
	MLX5_SET(destroy_umem_in, obj->dinbox, opcode, MLX5_CMD_OP_DESTROY_UMEM);
	MLX5_SET(destroy_umem_in, obj->dinbox, uid, uid);
	MLX5_SET(destroy_umem_in, obj->dinbox, umem_id, *id);
	return 0;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_UMEM_REG)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
					MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE);
	struct mlx5sp_devx_umem *obj;
	struct mlx5sp_ucontext *c;
	struct mlx5sp_ib_dev *dev;
	u64 addr, len;
	int access;
	u32 id;
	int err;

	c = devx_uctx(attrs);
	if (IS_ERR(c))
		return PTR_ERR(c);
	dev = to_ibdev(c->ibuc.device);
	if (uverbs_copy_from(&addr, attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_ADDR) ||
	    uverbs_copy_from(&len, attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_LEN))
		return -EFAULT;
	err = uverbs_get_flags32(&access, attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_ACCESS,
				 IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				 IB_ACCESS_REMOTE_READ);
	if (err)
		return err;
	/* dma-buf umems are not offered */
	if (uverbs_attr_is_valid(attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_DMABUF_FD))
		return -EOPNOTSUPP;
	err = ib_check_mr_access(&dev->ib, access);
	if (err)
		return err;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->dev = dev;
	obj->umem = ib_umem_get(&dev->ib, addr, len, access);
	if (IS_ERR(obj->umem)) {
		err = PTR_ERR(obj->umem);
		goto err_free;
	}
	err = devx_umem_create(dev, c->devx_uid, obj, &id);
	if (err)
		goto err_release;
	uobj->object = obj;
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE);
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_DEVX_UMEM_REG_OUT_ID, &id,
			      sizeof(id));

err_release:
	ib_umem_release(obj->umem);
err_free:
	kfree(obj);
	return err;
}

static int devx_umem_cleanup(struct ib_uobject *uobject,
			     enum rdma_remove_reason why,
			     struct uverbs_attr_bundle *attrs)
{
	struct mlx5sp_devx_umem *obj = uobject->object;
	u32 out[MLX5_ST_SZ_DW(destroy_umem_out)] = {};
	int err;

	err = mlx5sp_cmd_exec(obj->dev->mdev, obj->dinbox, sizeof(obj->dinbox),
			      out, sizeof(out));
	/* firmware still uses it: the pages stay pinned, ib_core tries again */
	if (err)
		return err;
	ib_umem_release(obj->umem);
	kfree(obj);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_UMEM_REG,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE,
					    MLX5_IB_OBJECT_DEVX_UMEM,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_ADDR,
					       UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_LEN,
					       UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
			    UVERBS_ATTR_RAW_FD(MLX5_IB_ATTR_DEVX_UMEM_REG_DMABUF_FD,
					       UA_OPTIONAL),
			    UVERBS_ATTR_FLAGS_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_ACCESS,
						 enum ib_access_flags),
			    UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_DEVX_UMEM_REG_PGSZ_BITMAP,
						 u64),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_UMEM_REG_OUT_ID,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(MLX5_IB_METHOD_DEVX_UMEM_DEREG,
				    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_UMEM_DEREG_HANDLE,
						    MLX5_IB_OBJECT_DEVX_UMEM,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_QUERY_EQN,
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_QUERY_EQN_USER_VEC,
					       UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_QUERY_EQN_DEV_EQN,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_QUERY_UAR,
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_QUERY_UAR_USER_IDX,
					       UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_QUERY_UAR_DEV_IDX,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_OTHER,
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OTHER_CMD_IN,
					       DEVX_CMD_IN_MIN,
					       UA_MANDATORY, UA_ALLOC_AND_COPY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT,
						DEVX_CMD_OUT_MIN,
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_OBJ_CREATE,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE,
					    MLX5_IB_OBJECT_DEVX_OBJ,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN,
					       DEVX_CMD_IN_MIN,
					       UA_MANDATORY, UA_ALLOC_AND_COPY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT,
						DEVX_CMD_OUT_MIN,
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(MLX5_IB_METHOD_DEVX_OBJ_DESTROY,
				    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE,
						    MLX5_IB_OBJECT_DEVX_OBJ,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_OBJ_MODIFY,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_HANDLE,
					    UVERBS_IDR_ANY_OBJECT,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_IN,
					       DEVX_CMD_IN_MIN,
					       UA_MANDATORY, UA_ALLOC_AND_COPY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_OUT,
						DEVX_CMD_OUT_MIN,
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_OBJ_QUERY,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE,
					    UVERBS_IDR_ANY_OBJECT,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN,
					       DEVX_CMD_IN_MIN,
					       UA_MANDATORY, UA_ALLOC_AND_COPY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT,
						DEVX_CMD_OUT_MIN,
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_DEVX_OBJ_ASYNC_QUERY,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_HANDLE,
					    UVERBS_IDR_ANY_OBJECT,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_CMD_IN,
					       DEVX_CMD_IN_MIN,
					       UA_MANDATORY, UA_ALLOC_AND_COPY),
			    UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_OUT_LEN,
						 u16, UA_MANDATORY),
			    UVERBS_ATTR_FD(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_FD,
					   MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD,
					   UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_ASYNC_WR_ID,
					       UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(MLX5_IB_OBJECT_DEVX,
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OTHER),
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_QUERY_UAR),
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_QUERY_EQN));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_OBJ,
			    UVERBS_TYPE_ALLOC_IDR(devx_obj_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_CREATE),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_DESTROY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_MODIFY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_QUERY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_ASYNC_QUERY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_UMEM,
			    UVERBS_TYPE_ALLOC_IDR(devx_umem_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_UMEM_REG),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_UMEM_DEREG));

static bool devx_is_supported(struct ib_device *ibdev)
{
	return MLX5SP_CAP_GEN(to_ibdev(ibdev), log_max_uctx);
}

const struct uapi_definition mlx5sp_devx_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX,
				      UAPI_DEF_IS_OBJ_SUPPORTED(devx_is_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_OBJ,
				      UAPI_DEF_IS_OBJ_SUPPORTED(devx_is_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_UMEM,
				      UAPI_DEF_IS_OBJ_SUPPORTED(devx_is_supported)),
	UAPI_DEF_CHAIN(mlx5sp_devx_event_defs),
	UAPI_DEF_CHAIN(mlx5sp_devx_async_defs),
	{}
};
