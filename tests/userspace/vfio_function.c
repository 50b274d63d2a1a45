// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software ConnectX's PCI function (mlx5sp_sim_vfio.ko) as a vfio
 * user sees it, without a guest: the device's regions and interrupts,
 * config space as a card has it (IDs, BAR sizing, capabilities), BAR0
 * gated by memory decoding, accesses no register takes refused, MSI-X
 * through eventfds, DMA pinned when bus mastering goes on, and the
 * function reset by an unmap under DMA and by VFIO_DEVICE_RESET.
 *
 *   vfio_function /sys/bus/mdev/devices/UUID
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/pci_regs.h>
#include <linux/vfio.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define NVEC		8
#define BAR_SIZE	(64ULL << 20)
#define DMA_IOVA	(1ULL << 30)
#define DMA_LEN		(8ULL << 20)

static int devfd;
static uint64_t cfg_off, bar_off;
static const char *sysdev;

static uint64_t sys_u64(const char *attr)
{
	char path[PATH_MAX], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/vendor/%s", sysdev, attr);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		fatal_err(path, errno);
	fclose(f);
	return strtoull(buf, NULL, 0);
}

static uint32_t cfg_rd(unsigned int off, unsigned int len)
{
	uint32_t v = 0;

	if (pread(devfd, &v, len, cfg_off + off) != (ssize_t)len)
		fatal_err("config read", errno);
	return v;
}

static void cfg_wr(unsigned int off, uint32_t v, unsigned int len)
{
	if (pwrite(devfd, &v, len, cfg_off + off) != (ssize_t)len)
		fatal_err("config write", errno);
}

/* BAR0 register at @off: -errno, or its value (the bytes big-endian). */
static int64_t bar_rd32(uint64_t off)
{
	uint8_t b[4];

	if (pread(devfd, b, 4, bar_off + off) != 4)
		return -errno;
	return (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
}

static int open_function(const char *uuid)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct vfio_group_status st = { .argsz = sizeof(st) };
	int container, group;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/iommu_group", sysdev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		fatal_err(path, errno);
	link[n] = 0;
	container = open("/dev/vfio/vfio", O_RDWR);
	if (container < 0)
		fatal_err("/dev/vfio/vfio", errno);
	check(ioctl(container, VFIO_GET_API_VERSION) == VFIO_API_VERSION,
	      "vfio API version %d", VFIO_API_VERSION);
	check(ioctl(container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) == 1,
	      "type1v2 IOMMU available for a mediated device");
	snprintf(path, sizeof(path), "/dev/vfio/%s", basename(link));
	group = open(path, O_RDWR);
	if (group < 0)
		fatal_err(path, errno);
	if (ioctl(group, VFIO_GROUP_GET_STATUS, &st))
		fatal_err("VFIO_GROUP_GET_STATUS", errno);
	check(st.flags & VFIO_GROUP_FLAGS_VIABLE, "group %s viable", path);
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container))
		fatal_err("VFIO_GROUP_SET_CONTAINER", errno);
	if (ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		fatal_err("VFIO_SET_IOMMU", errno);
	devfd = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, uuid);
	if (devfd < 0)
		fatal_err("VFIO_GROUP_GET_DEVICE_FD", errno);
	return container;
}

static void check_info(void)
{
	struct vfio_device_info info = { .argsz = sizeof(info) };
	struct vfio_region_info r = { .argsz = sizeof(r) };
	struct vfio_irq_info irq = { .argsz = sizeof(irq) };

	if (ioctl(devfd, VFIO_DEVICE_GET_INFO, &info))
		fatal_err("VFIO_DEVICE_GET_INFO", errno);
	check((info.flags & VFIO_DEVICE_FLAGS_PCI) &&
	      (info.flags & VFIO_DEVICE_FLAGS_RESET) &&
	      info.num_regions == VFIO_PCI_NUM_REGIONS &&
	      info.num_irqs == VFIO_PCI_NUM_IRQS,
	      "device: PCI, resettable, %u regions, %u interrupt indexes",
	      info.num_regions, info.num_irqs);

	r.index = VFIO_PCI_CONFIG_REGION_INDEX;
	if (ioctl(devfd, VFIO_DEVICE_GET_REGION_INFO, &r))
		fatal_err("config region info", errno);
	cfg_off = r.offset;
	check(r.size == 256, "config space of %llu bytes", (unsigned long long)r.size);
	r.index = VFIO_PCI_BAR0_REGION_INDEX;
	if (ioctl(devfd, VFIO_DEVICE_GET_REGION_INFO, &r))
		fatal_err("BAR0 region info", errno);
	bar_off = r.offset;
	check(r.size == BAR_SIZE && (r.flags & VFIO_REGION_INFO_FLAG_READ) &&
	      (r.flags & VFIO_REGION_INFO_FLAG_WRITE) &&
	      !(r.flags & VFIO_REGION_INFO_FLAG_MMAP),
	      "BAR0: 64 MiB, read and write trapped, no mmap");
	r.index = VFIO_PCI_BAR2_REGION_INDEX;
	check(!ioctl(devfd, VFIO_DEVICE_GET_REGION_INFO, &r) && !r.size,
	      "BAR2: none");
	r.index = VFIO_PCI_NUM_REGIONS;
	check(ioctl(devfd, VFIO_DEVICE_GET_REGION_INFO, &r) && errno == EINVAL,
	      "region %d: EINVAL", VFIO_PCI_NUM_REGIONS);

	irq.index = VFIO_PCI_MSIX_IRQ_INDEX;
	if (ioctl(devfd, VFIO_DEVICE_GET_IRQ_INFO, &irq))
		fatal_err("MSI-X interrupt info", errno);
	check(irq.count == NVEC && (irq.flags & VFIO_IRQ_INFO_EVENTFD),
	      "MSI-X: %u vectors, eventfd", irq.count);
	irq.index = VFIO_PCI_INTX_IRQ_INDEX;
	if (ioctl(devfd, VFIO_DEVICE_GET_IRQ_INFO, &irq))
		fatal_err("INTx interrupt info", errno);
	check(!irq.count, "INTx: none");
}

static void check_config(void)
{
	unsigned int cap, exp = 0, msix = 0, guard = 0;
	uint32_t v;

	check(cfg_rd(PCI_VENDOR_ID, 2) == 0x15b3 && cfg_rd(PCI_DEVICE_ID, 2) == 0x101b,
	      "IDs 15b3:101b");
	check(cfg_rd(PCI_CLASS_REVISION, 4) >> 8 == 0x020000, "class Ethernet controller");
	check(cfg_rd(PCI_SUBSYSTEM_VENDOR_ID, 2) == 0x15b3, "subsystem vendor 15b3");
	check(cfg_rd(PCI_INTERRUPT_PIN, 1) == 0, "no INTx pin");

	v = cfg_rd(PCI_BASE_ADDRESS_0, 4);
	check((v & 0xf) == (PCI_BASE_ADDRESS_MEM_TYPE_64 | PCI_BASE_ADDRESS_MEM_PREFETCH),
	      "BAR0 64-bit prefetchable memory (0x%x)", v);
	cfg_wr(PCI_BASE_ADDRESS_0, 0xffffffff, 4);
	cfg_wr(PCI_BASE_ADDRESS_1, 0xffffffff, 4);
	v = cfg_rd(PCI_BASE_ADDRESS_0, 4);
	check(v == (uint32_t)(~(BAR_SIZE - 1) | 0xc) &&
	      cfg_rd(PCI_BASE_ADDRESS_1, 4) == 0xffffffff,
	      "BAR0 sizing reads back 64 MiB (0x%x)", v);
	cfg_wr(PCI_BASE_ADDRESS_0, 0xf0000000, 4);
	cfg_wr(PCI_BASE_ADDRESS_1, 0, 4);
	check(cfg_rd(PCI_BASE_ADDRESS_2, 4) == 0, "BAR2 unimplemented");

	for (cap = cfg_rd(PCI_CAPABILITY_LIST, 1); cap && guard < 48; guard++) {
		switch (cfg_rd(cap, 1)) {
		case PCI_CAP_ID_EXP:
			exp = cap;
			break;
		case PCI_CAP_ID_MSIX:
			msix = cap;
			break;
		}
		cap = cfg_rd(cap + 1, 1);
	}
	check(exp && (cfg_rd(exp + PCI_EXP_DEVCAP, 4) & PCI_EXP_DEVCAP_FLR),
	      "PCIe capability at 0x%x, FLR capable", exp);
	check(msix && (cfg_rd(msix + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_QSIZE) == NVEC - 1 &&
	      cfg_rd(msix + PCI_MSIX_TABLE, 4) == 0x2000 &&
	      cfg_rd(msix + PCI_MSIX_PBA, 4) == 0x3000,
	      "MSI-X capability at 0x%x: %u vectors, table 0x2000 and PBA 0x3000 in BAR0",
	      msix, NVEC);
	cfg_wr(PCI_VENDOR_ID, 0, 2);
	cfg_wr(PCI_CLASS_REVISION, 0, 4);
	check(cfg_rd(PCI_VENDOR_ID, 2) == 0x15b3 &&
	      cfg_rd(PCI_CLASS_REVISION, 4) >> 8 == 0x020000,
	      "read-only config words stay as they are");
	check(pread(devfd, &v, 4, cfg_off + 254) < 0 && errno == EINVAL,
	      "config read past 256 bytes: EINVAL");
}

static void check_bar(void)
{
	uint8_t b[16];
	int64_t v;

	v = bar_rd32(0);
	check(v == 0xffffffff, "BAR0 with memory decoding off reads all ones");
	cfg_wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	v = bar_rd32(0);
	check(v >= 0 && v != 0xffffffff,
	      "BAR0 with memory decoding on: firmware revision word 0x%llx",
	      (long long)v);
	check(bar_rd32(BAR_SIZE) == -EINVAL, "BAR0 read past its end: EINVAL");
	check(pread(devfd, b, 3, bar_off) < 0 && errno == EINVAL,
	      "BAR0 read of 3 bytes: EINVAL");
	check(pread(devfd, b, 16, bar_off) < 0 && errno == EINVAL,
	      "BAR0 read of 16 bytes: EINVAL");
	memset(b, 0xa5, sizeof(b));
	/* a store no register takes (2 bytes, unaligned 8) is dropped */
	check(pwrite(devfd, b, 2, bar_off + 0x1000) == 2 &&
	      pwrite(devfd, b, 8, bar_off + 0x1004) == 8 && bar_rd32(0) == v,
	      "BAR0 stores of no register's width are dropped");
	check(pread(devfd, b, 1, bar_off + 3) == 1 && b[0] == (v & 0xff),
	      "a one-byte read takes its byte of the register");
}

static void check_irqs(void)
{
	char buf[sizeof(struct vfio_irq_set) + NVEC * sizeof(int32_t)];
	struct vfio_irq_set *set = (void *)buf;
	int32_t *fds = (int32_t *)set->data;
	uint64_t cnt;
	int i, hit = 0, others = 0;

	set->argsz = sizeof(*set);
	set->flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_INTX_IRQ_INDEX;
	set->start = 0;
	set->count = 0;
	check(ioctl(devfd, VFIO_DEVICE_SET_IRQS, set) && errno == EINVAL,
	      "SET_IRQS on INTx: EINVAL");
	set->index = VFIO_PCI_MSIX_IRQ_INDEX;
	set->start = NVEC;
	set->count = 1;
	check(ioctl(devfd, VFIO_DEVICE_SET_IRQS, set) && errno == EINVAL,
	      "SET_IRQS on vector %d: EINVAL", NVEC);

	set->argsz = sizeof(buf);
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->start = 0;
	set->count = NVEC;
	for (i = 0; i < NVEC; i++)
		fds[i] = eventfd(0, EFD_NONBLOCK);
	check(!ioctl(devfd, VFIO_DEVICE_SET_IRQS, set), "an eventfd on each of %d vectors", NVEC);

	set->argsz = sizeof(*set);
	set->flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->start = 3;
	set->count = 1;
	check(!ioctl(devfd, VFIO_DEVICE_SET_IRQS, set), "vector 3 triggered");
	for (i = 0; i < NVEC; i++) {
		if (read(fds[i], &cnt, sizeof(cnt)) != sizeof(cnt))
			continue;
		if (i == 3 && cnt == 1)
			hit = 1;
		else
			others++;
	}
	check(hit && !others, "its eventfd, and no other, signalled");
	for (i = 0; i < NVEC; i++)
		close(fds[i]);
}

static void check_dma(int container)
{
	struct vfio_iommu_type1_dma_map map = { .argsz = sizeof(map) };
	struct vfio_iommu_type1_dma_unmap unmap = { .argsz = sizeof(unmap) };
	uint64_t resets = sys_u64("resets"), pinned;
	void *mem;

	mem = mmap(NULL, DMA_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		fatal_err("mmap", errno);
	map.vaddr = (uintptr_t)mem;
	map.iova = DMA_IOVA;
	map.size = DMA_LEN;
	map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	if (ioctl(container, VFIO_IOMMU_MAP_DMA, &map))
		fatal_err("VFIO_IOMMU_MAP_DMA", errno);
	check(sys_u64("pinned_pages") == 0, "nothing pinned before bus mastering");
	cfg_wr(PCI_COMMAND, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER, 2);
	pinned = sys_u64("pinned_pages");
	check(pinned == DMA_LEN / 4096, "bus master on: %llu pages pinned, all %llu mapped",
	      (unsigned long long)pinned, DMA_LEN / 4096);
	check(cfg_rd(PCI_COMMAND, 2) & PCI_COMMAND_MASTER, "bus mastering on");

	unmap.iova = DMA_IOVA;
	unmap.size = DMA_LEN;
	check(!ioctl(container, VFIO_IOMMU_UNMAP_DMA, &unmap) && unmap.size == DMA_LEN,
	      "unmap of the pinned memory done");
	check(sys_u64("pinned_pages") == 0 && sys_u64("resets") == resets + 1,
	      "it reset the function and unpinned everything");
	check(!(cfg_rd(PCI_COMMAND, 2) & (PCI_COMMAND_MASTER | PCI_COMMAND_MEMORY)),
	      "the function comes back with decoding and bus mastering off");
	munmap(mem, DMA_LEN);

	check(!ioctl(devfd, VFIO_DEVICE_RESET) && sys_u64("resets") == resets + 2,
	      "VFIO_DEVICE_RESET resets the function");
	cfg_wr(0x60 + PCI_EXP_DEVCTL, PCI_EXP_DEVCTL_BCR_FLR, 2);
	check(sys_u64("resets") == resets + 3, "the PCIe FLR bit resets the function");
}

int main(int argc, char **argv)
{
	char *uuid;
	int container;

	if (argc != 2) {
		fprintf(stderr, "usage: %s /sys/bus/mdev/devices/UUID\n", argv[0]);
		return 2;
	}
	sysdev = argv[1];
	uuid = basename(strdup(argv[1]));
	container = open_function(uuid);
	check_info();
	check_config();
	check_bar();
	check_irqs();
	check_dma(container);
	close(devfd);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
