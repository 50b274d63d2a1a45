// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software ConnectX as a PCI function (mlx5sp_sim_vfio.ko): the
 * model's second front end, through vfio-mdev. Each mediated device is a
 * ConnectX-6 function that user space (QEMU's vfio-pci, for a guest)
 * drives as it would drive a card:
 *  - config space as a card has it: IDs, class, a 64-bit prefetchable
 *    BAR0, a PCIe capability (FLR) and MSI-X with its table and PBA in
 *    BAR0 (which QEMU emulates);
 *  - BAR0 through the region's read and write handlers, a 4-byte access
 *    as a big-endian register of the model, an 8-byte store as a
 *    doorbell (or a BlueFlame chunk), so the guest's kernel and user
 *    space both reach the model's registers and UAR pages;
 *  - MSI-X through the eventfds vfio gives;
 *  - DMA at the user's IOVAs: when bus mastering is turned on, every
 *    page user space mapped into the container is pinned (as vfio-pci
 *    pins a guest's whole memory for a card) and the model's DMA looks
 *    IOVAs up in that pin table, in any context, without sleeping;
 *  - an FLR (VFIO_DEVICE_RESET, the PCIe FLR bit, or an unmap of pinned
 *    memory under the device) destroys the model device and makes a new
 *    one: nothing of the old one touches memory afterwards.
 *
 * Locking: sim_vfio.lock (a mutex) serializes every access from user
 * space, the reset and the unmap callback; it is taken under vfio's
 * device_list_lock (unmap) and before vfio's iommu lock (pinning). The
 * model's own contexts never take it: raise_irq takes only irq_lock, a
 * DMA lookup only RCU (xa_load()).
 */

#include <linux/eventfd.h>
#include <linux/idr.h>
#include <linux/mdev.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pci_regs.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/unaligned.h>
#include <linux/vfio.h>
#include <linux/xarray.h>

#include "host.h"
#include "mlx5sp_sim.h"
#include "sim.h"

#define SIM_VFIO_NAME		"mlx5sp_sim_vfio"
#define SIM_VFIO_MAX_DEVS	4
#define SIM_VFIO_SUBSYS_ID	0x0007	/* a ConnectX-6 card's */
#define SIM_VFIO_MAX_VEC	32

/* region offsets in the device file, as vfio-pci lays them out */
#define SIM_VFIO_OFF_SHIFT	40
#define SIM_VFIO_OFF(index)	((u64)(index) << SIM_VFIO_OFF_SHIFT)
#define SIM_VFIO_OFF_MASK	(SIM_VFIO_OFF(1) - 1)

/* config space: the capabilities a ConnectX-6 function shows */
#define SIM_VFIO_CFG_SIZE	PCI_CFG_SPACE_SIZE
#define SIM_VFIO_CAP_EXP	0x60
#define SIM_VFIO_CAP_MSIX	0x9c
#define SIM_VFIO_MSIX_TABLE	0x2000	/* in BAR0, below the UAR pages */
#define SIM_VFIO_MSIX_PBA	0x3000

/* IOVA pinned at bus master enable: below 4 GiB, then the run above */
#define SIM_VFIO_PIN_CHUNK	VFIO_PIN_PAGES_MAX_ENTRIES

static unsigned int max_iova_gb = 64;
module_param(max_iova_gb, uint, 0444);
MODULE_PARM_DESC(max_iova_gb, "highest IOVA (GiB) pinned for a function's DMA (64)");

struct sim_vfio {
	struct vfio_device vdev;
	char name[MLX5SP_SIM_NAME_MAX + 1];
	int id;

	struct mutex lock;		/* protects everything below but irqs */
	struct mlx5sp_sim *sim;		/* while open */
	u8 cfg[SIM_VFIO_CFG_SIZE];	/* config space image, little-endian */
	u64 bar0;			/* BAR0 as written (sizing included) */
	struct xarray pinned;		/* IOVA page number -> struct page */
	unsigned long npinned;
	bool pin_scanned;		/* pinned holds the user's whole map */
	bool dma_on;			/* bus master enabled; read locklessly */
	u64 resets;
	char cable[IFNAMSIZ];		/* the port's cable, "": none */

	spinlock_t irq_lock;		/* protects trig[] */
	struct eventfd_ctx *trig[SIM_VFIO_MAX_VEC]; /* vector -> eventfd */
};

static DEFINE_IDA(sim_vfio_ida);

static struct sim_vfio *to_sim_vfio(struct vfio_device *vdev)
{
	return container_of(vdev, struct sim_vfio, vdev);
}

static u16 sim_vfio_nvec(void)
{
	struct mlx5sp_sim_params p;

	mlx5sp_sim_default_params(&p);
	return min_t(u16, p.num_vectors, SIM_VFIO_MAX_VEC);
}

/* ---- the model's host ops ---- */

static void *sim_vfio_dma_va(struct mlx5sp_sim *sim, u64 addr, size_t len)
{
	struct sim_vfio *v = sim->host_priv;
	struct page *page;

	if (!READ_ONCE(v->dma_on))
		return NULL;
	page = xa_load(&v->pinned, addr >> PAGE_SHIFT);
	return page ? page_address(page) + offset_in_page(addr) : NULL;
}

static void sim_vfio_raise_irq(struct mlx5sp_sim *sim, u16 vector)
{
	struct sim_vfio *v = sim->host_priv;
	unsigned long flags;

	spin_lock_irqsave(&v->irq_lock, flags);
	if (vector < ARRAY_SIZE(v->trig) && v->trig[vector])
		eventfd_signal(v->trig[vector]);
	spin_unlock_irqrestore(&v->irq_lock, flags);
}

/* Every access to a UAR page comes through the region handlers. */
static bool sim_vfio_uar_trap(struct mlx5sp_sim *sim)
{
	return false;
}

static const struct sim_host_ops sim_vfio_host = {
	.dma_va = sim_vfio_dma_va,
	.raise_irq = sim_vfio_raise_irq,
	.uar_trap = sim_vfio_uar_trap,
};

/* ---- DMA: the pin table ---- */

static void sim_vfio_unpin_all(struct sim_vfio *v)
{
	unsigned long idx, start = 0, n = 0;
	struct page *page;

	lockdep_assert_held(&v->lock);
	/* contiguous runs, at most a chunk at a time */
	xa_for_each(&v->pinned, idx, page) {
		if (n && (idx != start + n || n == SIM_VFIO_PIN_CHUNK)) {
			vfio_unpin_pages(&v->vdev, (u64)start << PAGE_SHIFT, n);
			n = 0;
		}
		if (!n)
			start = idx;
		n++;
	}
	if (n)
		vfio_unpin_pages(&v->vdev, (u64)start << PAGE_SHIFT, n);
	xa_destroy(&v->pinned);
	v->npinned = 0;
	v->pin_scanned = false;
}

/* Pin @n pages at @iova into the table; 0 or a negative errno. */
static int sim_vfio_pin(struct sim_vfio *v, u64 iova, int n,
			struct page **pages)
{
	int ret, i;

	ret = vfio_pin_pages(&v->vdev, iova, n, IOMMU_READ | IOMMU_WRITE,
			     pages);
	if (ret < 0)
		return ret;
	if (ret != n) {
		vfio_unpin_pages(&v->vdev, iova, ret);
		return -EFAULT;
	}
	for (i = 0; i < n; i++) {
		ret = xa_err(xa_store(&v->pinned, (iova >> PAGE_SHIFT) + i,
				      pages[i], GFP_KERNEL));
		if (ret) {
			/* the stored ones are unpinned with the table */
			vfio_unpin_pages(&v->vdev, iova + ((u64)i << PAGE_SHIFT),
					 n - i);
			return ret;
		}
		v->npinned++;
	}
	return 0;
}

/*
 * One chunk of IOVA space: whole if it is all mapped; if not, page by
 * page when its first, middle or last page is mapped (the edge of a
 * memory region); else it is a hole. Returns the pages pinned, or a
 * negative errno that is not about the mapping.
 */
static long sim_vfio_pin_chunk(struct sim_vfio *v, u64 iova,
			       struct page **pages)
{
	static const int probe[] = { 0, SIM_VFIO_PIN_CHUNK / 2,
				     SIM_VFIO_PIN_CHUNK - 1 };
	long pinned = 0;
	int i, ret;

	ret = sim_vfio_pin(v, iova, SIM_VFIO_PIN_CHUNK, pages);
	if (!ret)
		return SIM_VFIO_PIN_CHUNK;
	if (ret == -ENOMEM)
		return ret;
	for (i = 0; i < ARRAY_SIZE(probe); i++) {
		ret = sim_vfio_pin(v, iova + ((u64)probe[i] << PAGE_SHIFT), 1,
				   pages);
		if (ret == -ENOMEM)
			return ret;
		if (!ret)
			pinned++;
	}
	if (!pinned)
		return 0;
	for (i = 0; i < SIM_VFIO_PIN_CHUNK; i++) {
		u64 a = iova + ((u64)i << PAGE_SHIFT);

		if (xa_load(&v->pinned, a >> PAGE_SHIFT))
			continue;
		ret = sim_vfio_pin(v, a, 1, pages);
		if (ret == -ENOMEM)
			return ret;
		if (!ret)
			pinned++;
		cond_resched();
	}
	return pinned;
}

/*
 * Bus mastering on: pin what user space mapped (QEMU maps a guest's RAM
 * when it starts), all of it below 4 GiB, and above it up to the first
 * hole, as a guest's RAM lies.
 */
static int sim_vfio_pin_scan(struct sim_vfio *v)
{
	u64 max = (u64)max_iova_gb << 30, iova;
	struct page **pages;
	long got;
	int err = 0;

	lockdep_assert_held(&v->lock);
	if (v->pin_scanned)
		return 0;
	pages = kcalloc(SIM_VFIO_PIN_CHUNK, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (iova = 0; iova < max; iova += (u64)SIM_VFIO_PIN_CHUNK << PAGE_SHIFT) {
		got = sim_vfio_pin_chunk(v, iova, pages);
		if (got < 0) {
			err = got;
			break;
		}
		if (!got && iova >= SZ_4G)
			break;
		cond_resched();
	}
	kfree(pages);
	if (err) {
		dev_err(v->vdev.dev, "%s: pinning DMA memory failed (%d)\n",
			v->name, err);
		sim_vfio_unpin_all(v);
		return err;
	}
	v->pin_scanned = true;
	dev_info(v->vdev.dev, "%s: bus master on, %lu pages of DMA memory pinned\n",
		 v->name, v->npinned);
	return 0;
}

/* ---- config space ---- */

static void cfg_w16(struct sim_vfio *v, unsigned int off, u16 val)
{
	put_unaligned_le16(val, &v->cfg[off]);
}

static void cfg_w32(struct sim_vfio *v, unsigned int off, u32 val)
{
	put_unaligned_le32(val, &v->cfg[off]);
}

static u16 cfg_r16(struct sim_vfio *v, unsigned int off)
{
	return get_unaligned_le16(&v->cfg[off]);
}

#define SIM_VFIO_BAR0_FLAGS	(PCI_BASE_ADDRESS_SPACE_MEMORY | \
				 PCI_BASE_ADDRESS_MEM_TYPE_64 | \
				 PCI_BASE_ADDRESS_MEM_PREFETCH)

/* What a function shows after power-on or an FLR. */
static void sim_vfio_cfg_reset(struct sim_vfio *v)
{
	const unsigned int e = SIM_VFIO_CAP_EXP, m = SIM_VFIO_CAP_MSIX;

	memset(v->cfg, 0, sizeof(v->cfg));
	cfg_w16(v, PCI_VENDOR_ID, SIM_VENDOR_ID);
	cfg_w16(v, PCI_DEVICE_ID, SIM_DEVICE_ID);
	cfg_w16(v, PCI_STATUS, PCI_STATUS_CAP_LIST);
	cfg_w32(v, PCI_CLASS_REVISION, PCI_CLASS_NETWORK_ETHERNET << 16);
	cfg_w16(v, PCI_SUBSYSTEM_VENDOR_ID, SIM_VENDOR_ID);
	cfg_w16(v, PCI_SUBSYSTEM_ID, SIM_VFIO_SUBSYS_ID);
	v->cfg[PCI_CAPABILITY_LIST] = e;
	v->bar0 = 0;

	/* PCIe v2 endpoint: 512-byte payloads, FLR, x16 at 16 GT/s */
	v->cfg[e + PCI_CAP_LIST_ID] = PCI_CAP_ID_EXP;
	v->cfg[e + PCI_CAP_LIST_NEXT] = m;
	cfg_w16(v, e + PCI_EXP_FLAGS, 2 | PCI_EXP_TYPE_ENDPOINT << 4);
	cfg_w32(v, e + PCI_EXP_DEVCAP, 2 | PCI_EXP_DEVCAP_FLR);
	cfg_w16(v, e + PCI_EXP_DEVCTL, PCI_EXP_DEVCTL_RELAX_EN |
		PCI_EXP_DEVCTL_NOSNOOP_EN | 0x2000 /* 512-byte read requests */);
	cfg_w32(v, e + PCI_EXP_LNKCAP, PCI_EXP_LNKCAP_SLS_16_0GB | 16 << 4);
	cfg_w16(v, e + PCI_EXP_LNKSTA, PCI_EXP_LNKSTA_CLS_16_0GB |
		16 << PCI_EXP_LNKSTA_NLW_SHIFT);
	cfg_w32(v, e + PCI_EXP_DEVCAP2, PCI_EXP_DEVCAP2_ATOMIC_COMP32 |
		PCI_EXP_DEVCAP2_ATOMIC_COMP64 | PCI_EXP_DEVCAP2_ATOMIC_COMP128);

	/* MSI-X: table and PBA in BAR0, as on a card */
	v->cfg[m + PCI_CAP_LIST_ID] = PCI_CAP_ID_MSIX;
	v->cfg[m + PCI_CAP_LIST_NEXT] = 0;
	cfg_w16(v, m + PCI_MSIX_FLAGS, sim_vfio_nvec() - 1);
	cfg_w32(v, m + PCI_MSIX_TABLE, SIM_VFIO_MSIX_TABLE);
	cfg_w32(v, m + PCI_MSIX_PBA, SIM_VFIO_MSIX_PBA);
}

/* Which bits of a config byte software may write. */
static u8 sim_vfio_cfg_wmask(unsigned int off)
{
	const unsigned int e = SIM_VFIO_CAP_EXP, m = SIM_VFIO_CAP_MSIX;
	u16 cmd = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
		  PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
		  PCI_COMMAND_INTX_DISABLE;

	switch (off) {
	case PCI_COMMAND:
		return cmd & 0xff;
	case PCI_COMMAND + 1:
		return cmd >> 8;
	case PCI_CACHE_LINE_SIZE:
	case PCI_INTERRUPT_LINE:
		return 0xff;
	case m + PCI_MSIX_FLAGS + 1:
		return (PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL) >> 8;
	case e + PCI_EXP_DEVCTL:
	case e + PCI_EXP_DEVCTL + 1:
	case e + PCI_EXP_LNKCTL:
	case e + PCI_EXP_LNKCTL + 1:
	case e + PCI_EXP_DEVCTL2:
	case e + PCI_EXP_DEVCTL2 + 1:
		return 0xff;
	default:
		return 0;
	}
}

static int sim_vfio_reset(struct sim_vfio *v, const char *why);

static int sim_vfio_cfg_read(struct sim_vfio *v, unsigned int off, u8 *buf,
			     size_t len)
{
	u8 img[SIM_VFIO_CFG_SIZE];
	u64 bar;

	memcpy(img, v->cfg, sizeof(img));
	bar = (v->bar0 & ~((u64)SIM_BAR_SIZE - 1)) | SIM_VFIO_BAR0_FLAGS;
	put_unaligned_le64(bar, &img[PCI_BASE_ADDRESS_0]);
	memcpy(buf, &img[off], len);
	return 0;
}

static int sim_vfio_cfg_write(struct sim_vfio *v, unsigned int off,
			      const u8 *buf, size_t len)
{
	const unsigned int devctl = SIM_VFIO_CAP_EXP + PCI_EXP_DEVCTL;
	u16 old_cmd = cfg_r16(v, PCI_COMMAND), cmd;
	unsigned int i;
	u8 mask;
	bool flr = false;
	int err = 0;

	for (i = 0; i < len; i++) {
		unsigned int o = off + i;

		/* BAR0 and its upper half: sizing writes are kept */
		if (o >= PCI_BASE_ADDRESS_0 && o < PCI_BASE_ADDRESS_2) {
			unsigned int sh = (o - PCI_BASE_ADDRESS_0) * 8;

			v->bar0 &= ~(0xffULL << sh);
			v->bar0 |= (u64)buf[i] << sh;
			continue;
		}
		if (o == devctl + 1 && (buf[i] & (PCI_EXP_DEVCTL_BCR_FLR >> 8)))
			flr = true;
		mask = sim_vfio_cfg_wmask(o);
		if (o == devctl + 1)
			mask &= ~(PCI_EXP_DEVCTL_BCR_FLR >> 8);
		v->cfg[o] = (v->cfg[o] & ~mask) | (buf[i] & mask);
	}
	if (flr)
		return sim_vfio_reset(v, "FLR");

	cmd = cfg_r16(v, PCI_COMMAND);
	if ((cmd & PCI_COMMAND_MASTER) && !(old_cmd & PCI_COMMAND_MASTER)) {
		err = sim_vfio_pin_scan(v);
		if (err) {
			/* bus mastering stays off: no DMA without the pins */
			cmd &= ~PCI_COMMAND_MASTER;
			cfg_w16(v, PCI_COMMAND, cmd);
		}
	}
	WRITE_ONCE(v->dma_on, !!(cmd & PCI_COMMAND_MASTER));
	return err;
}

/* ---- BAR0 ---- */

static bool sim_vfio_mem_on(struct sim_vfio *v)
{
	return cfg_r16(v, PCI_COMMAND) & PCI_COMMAND_MEMORY;
}

/*
 * A 4-byte read is a register of the model, big-endian on the bus; an
 * 8-byte read two of them. With memory decoding off, or past the end,
 * reads return all ones, as a master abort does.
 */
static void sim_vfio_bar_read(struct sim_vfio *v, u32 off, u8 *buf,
			      size_t len)
{
	struct mlx5sp_model_dev *mdev = mlx5sp_sim_model(v->sim);
	u32 base = ALIGN_DOWN(off, 4);
	u8 words[12];
	size_t i;

	if (!sim_vfio_mem_on(v)) {
		memset(buf, 0xff, len);
		return;
	}
	/* a narrower read takes its bytes of the register */
	for (i = 0; base + i < off + len; i += 4)
		put_unaligned_be32(mdev->ops->read32(mdev, base + i), words + i);
	memcpy(buf, words + (off - base), len);
}

/* A 4-byte store is a register write, an 8-byte one a doorbell. */
static void sim_vfio_bar_write(struct sim_vfio *v, u32 off, const u8 *buf,
			       size_t len)
{
	struct mlx5sp_model_dev *mdev = mlx5sp_sim_model(v->sim);
	u64 val;

	if (!sim_vfio_mem_on(v))
		return;
	if (len == 8 && IS_ALIGNED(off, 8)) {
		memcpy(&val, buf, sizeof(val));
		mdev->ops->write64(mdev, off, val);
	} else if (len == 4 && IS_ALIGNED(off, 4)) {
		mdev->ops->write32(mdev, off, get_unaligned_be32(buf));
	}
	/* other widths: no register takes them; dropped as on the bus */
}

/* ---- the function's life ---- */

static void sim_vfio_irqs_off(struct sim_vfio *v)
{
	struct eventfd_ctx *old[ARRAY_SIZE(v->trig)];
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&v->irq_lock, flags);
	memcpy(old, v->trig, sizeof(old));
	memset(v->trig, 0, sizeof(v->trig));
	spin_unlock_irqrestore(&v->irq_lock, flags);
	for (i = 0; i < ARRAY_SIZE(old); i++)
		if (old[i])
			eventfd_ctx_put(old[i]);
}

static int sim_vfio_sim_new(struct sim_vfio *v)
{
	struct net_device *cable = NULL;
	struct mlx5sp_sim *sim;
	int err;

	lockdep_assert_held(&v->lock);
	/* the vendor/cable attribute: a port whose cable is that netdev */
	if (v->cable[0]) {
		cable = dev_get_by_name(&init_net, v->cable);
		if (!cable) {
			dev_err(v->vdev.dev, "%s: cable %s: no such netdev\n",
				v->name, v->cable);
			return -ENODEV;
		}
		err = sim_cable_check(cable);
		if (err) {
			dev_put(cable);
			return err;
		}
	}
	sim = sim_create_host(v->name, NULL, &sim_vfio_host, v, cable);
	/* the device holds its own reference */
	if (cable)
		dev_put(cable);
	if (IS_ERR(sim)) {
		dev_err(v->vdev.dev, "%s: model device not created (%ld)\n",
			v->name, PTR_ERR(sim));
		return PTR_ERR(sim);
	}
	v->sim = sim;
	return 0;
}

/*
 * An FLR: the model device and all it holds go (its work stops before
 * it returns, so nothing of it reaches memory after), the function comes
 * back as after power-on, its pins kept for the next bus master.
 */
/* No DMA, no model device, no vectors: what a reset and a close share. */
static void sim_vfio_stop(struct sim_vfio *v)
{
	lockdep_assert_held(&v->lock);
	WRITE_ONCE(v->dma_on, false);
	mlx5sp_sim_destroy(v->sim);
	v->sim = NULL;
	sim_vfio_irqs_off(v);
}

static int sim_vfio_reset(struct sim_vfio *v, const char *why)
{
	sim_vfio_stop(v);
	sim_vfio_cfg_reset(v);
	v->resets++;
	dev_info(v->vdev.dev, "%s: function reset (%s)\n", v->name, why);
	return sim_vfio_sim_new(v);
}

static int sim_vfio_open(struct vfio_device *vdev)
{
	struct sim_vfio *v = to_sim_vfio(vdev);
	int err;

	mutex_lock(&v->lock);
	sim_vfio_cfg_reset(v);
	err = sim_vfio_sim_new(v);
	mutex_unlock(&v->lock);
	return err;
}

static void sim_vfio_close(struct vfio_device *vdev)
{
	struct sim_vfio *v = to_sim_vfio(vdev);

	mutex_lock(&v->lock);
	sim_vfio_stop(v);
	sim_vfio_unpin_all(v);
	mutex_unlock(&v->lock);
}

/*
 * User space unmaps IOVA: pinned pages there must be let go now. The
 * model may hold them (queues, firmware pages), so the function resets
 * first, as a card whose memory went would be reset by its driver.
 */
static void sim_vfio_dma_unmap(struct vfio_device *vdev, u64 iova, u64 len)
{
	struct sim_vfio *v = to_sim_vfio(vdev);
	unsigned long first = iova >> PAGE_SHIFT;
	unsigned long last = (iova + len - 1) >> PAGE_SHIFT;
	unsigned long idx = first;

	mutex_lock(&v->lock);
	if (!len || !xa_find(&v->pinned, &idx, last, XA_PRESENT)) {
		mutex_unlock(&v->lock);
		return;
	}
	dev_warn(v->vdev.dev, "%s: IOVA 0x%llx+0x%llx unmapped under DMA\n",
		 v->name, iova, len);
	if (v->sim)
		sim_vfio_reset(v, "memory unmapped");
	sim_vfio_unpin_all(v);
	mutex_unlock(&v->lock);
}

/* ---- the device file ---- */

static ssize_t sim_vfio_rw(struct sim_vfio *v, char __user *ubuf, size_t count,
			   loff_t *ppos, bool write)
{
	unsigned int index = *ppos >> SIM_VFIO_OFF_SHIFT;
	u64 off = *ppos & SIM_VFIO_OFF_MASK;
	u8 buf[SIM_VFIO_CFG_SIZE];
	size_t len = count;
	int err = 0;

	/*
	 * Config space in any piece (QEMU reads it whole); BAR0 one access
	 * at a time, of the width the user made it.
	 */
	if (!count || count > sizeof(buf) ||
	    (index != VFIO_PCI_CONFIG_REGION_INDEX &&
	     (count > 8 || !is_power_of_2(count))))
		return -EINVAL;
	if (write && copy_from_user(buf, ubuf, len))
		return -EFAULT;

	mutex_lock(&v->lock);
	if (!v->sim) {
		err = -EIO;
		goto out;
	}
	switch (index) {
	case VFIO_PCI_CONFIG_REGION_INDEX:
		if (off + len > SIM_VFIO_CFG_SIZE) {
			err = -EINVAL;
			break;
		}
		if (write)
			err = sim_vfio_cfg_write(v, off, buf, len);
		else
			err = sim_vfio_cfg_read(v, off, buf, len);
		break;
	case VFIO_PCI_BAR0_REGION_INDEX:
		if (off + len > SIM_BAR_SIZE) {
			err = -EINVAL;
			break;
		}
		if (write)
			sim_vfio_bar_write(v, off, buf, len);
		else
			sim_vfio_bar_read(v, off, buf, len);
		break;
	default:
		err = -EINVAL;
		break;
	}
out:
	mutex_unlock(&v->lock);
	if (err)
		return err;
	if (!write && copy_to_user(ubuf, buf, len))
		return -EFAULT;
	*ppos += len;
	return len;
}

static ssize_t sim_vfio_read(struct vfio_device *vdev, char __user *buf,
			     size_t count, loff_t *ppos)
{
	return sim_vfio_rw(to_sim_vfio(vdev), buf, count, ppos, false);
}

static ssize_t sim_vfio_write(struct vfio_device *vdev,
			      const char __user *buf, size_t count,
			      loff_t *ppos)
{
	return sim_vfio_rw(to_sim_vfio(vdev), (char __user *)buf, count, ppos,
			   true);
}

static int sim_vfio_region_info(struct vfio_region_info *info)
{
	info->offset = SIM_VFIO_OFF(info->index);
	info->flags = 0;
	info->size = 0;
	switch (info->index) {
	case VFIO_PCI_CONFIG_REGION_INDEX:
		info->size = SIM_VFIO_CFG_SIZE;
		break;
	case VFIO_PCI_BAR0_REGION_INDEX:
		info->size = SIM_BAR_SIZE;
		break;
	default:
		/* BAR1 is BAR0's upper half; no other BARs, ROM or VGA */
		if (info->index >= VFIO_PCI_NUM_REGIONS)
			return -EINVAL;
		return 0;
	}
	info->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
	return 0;
}

static int sim_vfio_set_trigger(struct sim_vfio *v, u32 flags, u32 start,
				u32 count, const void *data)
{
	struct eventfd_ctx *ctx, *old;
	unsigned long irqf;
	const s32 *fds = data;
	u32 i;

	if (flags & VFIO_IRQ_SET_DATA_NONE) {
		if (!count) {
			sim_vfio_irqs_off(v);
			return 0;
		}
		for (i = 0; i < count; i++)
			sim_vfio_raise_irq(v->sim, start + i);
		return 0;
	}
	if (flags & VFIO_IRQ_SET_DATA_BOOL) {
		const u8 *b = data;

		for (i = 0; i < count; i++)
			if (b[i])
				sim_vfio_raise_irq(v->sim, start + i);
		return 0;
	}
	/* DATA_EVENTFD: -1 takes a vector's eventfd away */
	for (i = 0; i < count; i++) {
		ctx = NULL;
		if (fds[i] >= 0) {
			ctx = eventfd_ctx_fdget(fds[i]);
			if (IS_ERR(ctx))
				return PTR_ERR(ctx);
		}
		spin_lock_irqsave(&v->irq_lock, irqf);
		old = v->trig[start + i];
		v->trig[start + i] = ctx;
		spin_unlock_irqrestore(&v->irq_lock, irqf);
		if (old)
			eventfd_ctx_put(old);
	}
	return 0;
}

static long sim_vfio_ioctl(struct vfio_device *vdev, unsigned int cmd,
			   unsigned long arg)
{
	struct sim_vfio *v = to_sim_vfio(vdev);
	void __user *uarg = (void __user *)arg;
	unsigned long minsz;
	int err;

	switch (cmd) {
	case VFIO_DEVICE_GET_INFO: {
		struct vfio_device_info info;

		minsz = offsetofend(struct vfio_device_info, num_irqs);
		if (copy_from_user(&info, uarg, minsz))
			return -EFAULT;
		if (info.argsz < minsz)
			return -EINVAL;
		info.flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
		info.num_regions = VFIO_PCI_NUM_REGIONS;
		info.num_irqs = VFIO_PCI_NUM_IRQS;
		return copy_to_user(uarg, &info, minsz) ? -EFAULT : 0;
	}
	case VFIO_DEVICE_GET_REGION_INFO: {
		struct vfio_region_info info;

		minsz = offsetofend(struct vfio_region_info, offset);
		if (copy_from_user(&info, uarg, minsz))
			return -EFAULT;
		if (info.argsz < minsz)
			return -EINVAL;
		err = sim_vfio_region_info(&info);
		if (err)
			return err;
		return copy_to_user(uarg, &info, minsz) ? -EFAULT : 0;
	}
	case VFIO_DEVICE_GET_IRQ_INFO: {
		struct vfio_irq_info info;

		minsz = offsetofend(struct vfio_irq_info, count);
		if (copy_from_user(&info, uarg, minsz))
			return -EFAULT;
		if (info.argsz < minsz || info.index >= VFIO_PCI_NUM_IRQS)
			return -EINVAL;
		info.flags = 0;
		info.count = 0;
		/* MSI-X only: no INTx pin, no MSI capability */
		if (info.index == VFIO_PCI_MSIX_IRQ_INDEX) {
			info.flags = VFIO_IRQ_INFO_EVENTFD |
				     VFIO_IRQ_INFO_NORESIZE;
			info.count = sim_vfio_nvec();
		}
		return copy_to_user(uarg, &info, minsz) ? -EFAULT : 0;
	}
	case VFIO_DEVICE_SET_IRQS: {
		struct vfio_irq_set hdr;
		size_t data_size = 0;
		u8 *data = NULL;

		minsz = offsetofend(struct vfio_irq_set, count);
		if (copy_from_user(&hdr, uarg, minsz))
			return -EFAULT;
		if (hdr.index != VFIO_PCI_MSIX_IRQ_INDEX)
			return -EINVAL;
		err = vfio_set_irqs_validate_and_prepare(&hdr, sim_vfio_nvec(),
							 VFIO_PCI_NUM_IRQS,
							 &data_size);
		if (err)
			return err;
		if ((hdr.flags & VFIO_IRQ_SET_ACTION_TYPE_MASK) !=
		    VFIO_IRQ_SET_ACTION_TRIGGER)
			return -EINVAL;
		if (data_size) {
			data = memdup_user(uarg + minsz, data_size);
			if (IS_ERR(data))
				return PTR_ERR(data);
		}
		mutex_lock(&v->lock);
		err = v->sim ? sim_vfio_set_trigger(v, hdr.flags, hdr.start,
						    hdr.count, data) : -EIO;
		mutex_unlock(&v->lock);
		kfree(data);
		return err;
	}
	case VFIO_DEVICE_RESET:
		mutex_lock(&v->lock);
		err = v->sim ? sim_vfio_reset(v, "VFIO_DEVICE_RESET") : -EIO;
		mutex_unlock(&v->lock);
		return err;
	}
	return -ENOTTY;
}

static int sim_vfio_init_dev(struct vfio_device *vdev)
{
	struct sim_vfio *v = to_sim_vfio(vdev);

	v->id = ida_alloc_max(&sim_vfio_ida, SIM_VFIO_MAX_DEVS - 1, GFP_KERNEL);
	if (v->id < 0)
		return v->id;
	snprintf(v->name, sizeof(v->name), "vfio%d", v->id);
	mutex_init(&v->lock);
	spin_lock_init(&v->irq_lock);
	xa_init(&v->pinned);
	return 0;
}

static void sim_vfio_release_dev(struct vfio_device *vdev)
{
	struct sim_vfio *v = to_sim_vfio(vdev);

	xa_destroy(&v->pinned);
	mutex_destroy(&v->lock);
	ida_free(&sim_vfio_ida, v->id);
}

static const struct vfio_device_ops sim_vfio_ops = {
	.init = sim_vfio_init_dev,
	.release = sim_vfio_release_dev,
	.open_device = sim_vfio_open,
	.close_device = sim_vfio_close,
	.read = sim_vfio_read,
	.write = sim_vfio_write,
	.ioctl = sim_vfio_ioctl,
	.dma_unmap = sim_vfio_dma_unmap,
	.bind_iommufd = vfio_iommufd_emulated_bind,
	.unbind_iommufd = vfio_iommufd_emulated_unbind,
	.attach_ioas = vfio_iommufd_emulated_attach_ioas,
	.detach_ioas = vfio_iommufd_emulated_detach_ioas,
};

/* ---- the mdev parent ---- */

static ssize_t sim_name_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct sim_vfio *v = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", v->name);
}
static DEVICE_ATTR_RO(sim_name);

static ssize_t resets_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct sim_vfio *v = dev_get_drvdata(dev);
	u64 n;

	mutex_lock(&v->lock);
	n = v->resets;
	mutex_unlock(&v->lock);
	return sysfs_emit(buf, "%llu\n", n);
}
static DEVICE_ATTR_RO(resets);

static ssize_t pinned_pages_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct sim_vfio *v = dev_get_drvdata(dev);
	unsigned long n;

	mutex_lock(&v->lock);
	n = v->npinned;
	mutex_unlock(&v->lock);
	return sysfs_emit(buf, "%lu\n", n);
}
static DEVICE_ATTR_RO(pinned_pages);

/* The port's cable, a netdev name: set while the function is closed. */
static ssize_t cable_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct sim_vfio *v = dev_get_drvdata(dev);
	ssize_t n;

	mutex_lock(&v->lock);
	n = sysfs_emit(buf, "%s\n", v->cable);
	mutex_unlock(&v->lock);
	return n;
}

static ssize_t cable_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct sim_vfio *v = dev_get_drvdata(dev);
	char name[IFNAMSIZ];
	int err = 0;

	if (strscpy(name, buf, sizeof(name)) < 0)
		return -EINVAL;
	strim(name);
	if (*name && !dev_valid_name(name))
		return -EINVAL;
	mutex_lock(&v->lock);
	if (v->sim)
		err = -EBUSY;
	else
		strscpy(v->cable, strim(name), sizeof(v->cable));
	mutex_unlock(&v->lock);
	return err ?: count;
}
static DEVICE_ATTR_RW(cable);

static struct attribute *sim_vfio_attrs[] = {
	&dev_attr_sim_name.attr,
	&dev_attr_resets.attr,
	&dev_attr_pinned_pages.attr,
	&dev_attr_cable.attr,
	NULL,
};

static const struct attribute_group sim_vfio_group = {
	.name = "vendor",
	.attrs = sim_vfio_attrs,
};

static const struct attribute_group *sim_vfio_groups[] = {
	&sim_vfio_group,
	NULL,
};

static atomic_t sim_vfio_count = ATOMIC_INIT(0);

static int sim_vfio_probe(struct mdev_device *mdev)
{
	struct sim_vfio *v;
	int err;

	v = vfio_alloc_device(sim_vfio, vdev, &mdev->dev, &sim_vfio_ops);
	if (IS_ERR(v))
		return PTR_ERR(v);
	err = vfio_register_emulated_iommu_dev(&v->vdev);
	if (err)
		goto err_put;
	dev_set_drvdata(&mdev->dev, v);
	atomic_inc(&sim_vfio_count);
	return 0;

err_put:
	vfio_put_device(&v->vdev);
	return err;
}

static void sim_vfio_remove(struct mdev_device *mdev)
{
	struct sim_vfio *v = dev_get_drvdata(&mdev->dev);

	vfio_unregister_group_dev(&v->vdev);
	vfio_put_device(&v->vdev);
	atomic_dec(&sim_vfio_count);
}

static unsigned int sim_vfio_available(struct mdev_type *mtype)
{
	return SIM_VFIO_MAX_DEVS - atomic_read(&sim_vfio_count);
}

static ssize_t sim_vfio_describe(struct mdev_type *mtype, char *buf)
{
	return sysfs_emit(buf,
			  "ConnectX-6 function (%04x:%04x), software model, %u MSI-X vectors\n",
			  SIM_VENDOR_ID, SIM_DEVICE_ID, sim_vfio_nvec());
}

static struct mdev_driver sim_vfio_driver = {
	.device_api = VFIO_DEVICE_API_PCI_STRING,
	.driver = {
		.name = SIM_VFIO_NAME,
		.owner = THIS_MODULE,
		.mod_name = KBUILD_MODNAME,
		.dev_groups = sim_vfio_groups,
	},
	.probe = sim_vfio_probe,
	.remove = sim_vfio_remove,
	.get_available = sim_vfio_available,
	.show_description = sim_vfio_describe,
};

static struct mdev_type sim_vfio_type = {
	.sysfs_name = "cx6",
	.pretty_name = "ConnectX-6 (mlx5sp model)",
};

static struct mdev_type *sim_vfio_types[] = { &sim_vfio_type };

static const struct class sim_vfio_class = {
	.name = SIM_VFIO_NAME,
};

static struct device sim_vfio_parent_dev;
static struct mdev_parent sim_vfio_parent;

static void sim_vfio_parent_release(struct device *dev)
{
}

static int __init sim_vfio_init(void)
{
	int err;

	err = mdev_register_driver(&sim_vfio_driver);
	if (err)
		return err;
	err = class_register(&sim_vfio_class);
	if (err)
		goto err_driver;
	sim_vfio_parent_dev.class = &sim_vfio_class;
	sim_vfio_parent_dev.release = sim_vfio_parent_release;
	dev_set_name(&sim_vfio_parent_dev, "%s", SIM_VFIO_NAME);
	err = device_register(&sim_vfio_parent_dev);
	if (err)
		goto err_put;
	err = mdev_register_parent(&sim_vfio_parent, &sim_vfio_parent_dev,
				   &sim_vfio_driver, sim_vfio_types,
				   ARRAY_SIZE(sim_vfio_types));
	if (err)
		goto err_device;
	return 0;

err_device:
	device_del(&sim_vfio_parent_dev);
err_put:
	put_device(&sim_vfio_parent_dev);
	class_unregister(&sim_vfio_class);
err_driver:
	mdev_unregister_driver(&sim_vfio_driver);
	return err;
}

static void __exit sim_vfio_exit(void)
{
	mdev_unregister_parent(&sim_vfio_parent);
	device_unregister(&sim_vfio_parent_dev);
	class_unregister(&sim_vfio_class);
	mdev_unregister_driver(&sim_vfio_driver);
}

module_init(sim_vfio_init);
module_exit(sim_vfio_exit);
MODULE_DESCRIPTION("Software ConnectX as a PCI function through vfio-mdev");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(MLX5SP_SIM);
