// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ethtool for the port's NIC: driver and firmware, the link (PTYS) and
 * the NIC's own counters.
 */
#include <linux/ethtool.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/port.h>

#include "eth.h"

static void get_drvinfo(struct net_device *netdev,
			struct ethtool_drvinfo *info)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);

	strscpy(info->driver, MLX5SP_DRV_NAME, sizeof(info->driver));
	strscpy(info->fw_version, eth->mdev->fw_ver, sizeof(info->fw_version));
	strscpy(info->bus_info, dev_name(eth->mdev->dma_dev),
		sizeof(info->bus_info));
}

/* PTYS Ethernet protocols (mlx5e's link modes) as ethtool names them. */
static const struct {
	u8 ptys;
	u32 speed;
	u8 mode;
} link_modes[] = {
	{ MLX5E_1000BASE_CX_SGMII, SPEED_1000, ETHTOOL_LINK_MODE_1000baseKX_Full_BIT },
	{ MLX5E_1000BASE_KX, SPEED_1000, ETHTOOL_LINK_MODE_1000baseKX_Full_BIT },
	{ MLX5E_10GBASE_KR, SPEED_10000, ETHTOOL_LINK_MODE_10000baseKR_Full_BIT },
	{ MLX5E_10GBASE_CR, SPEED_10000, ETHTOOL_LINK_MODE_10000baseCR_Full_BIT },
	{ MLX5E_10GBASE_SR, SPEED_10000, ETHTOOL_LINK_MODE_10000baseSR_Full_BIT },
	{ MLX5E_10GBASE_ER, SPEED_10000, ETHTOOL_LINK_MODE_10000baseER_Full_BIT },
	{ MLX5E_25GBASE_CR, SPEED_25000, ETHTOOL_LINK_MODE_25000baseCR_Full_BIT },
	{ MLX5E_25GBASE_KR, SPEED_25000, ETHTOOL_LINK_MODE_25000baseKR_Full_BIT },
	{ MLX5E_25GBASE_SR, SPEED_25000, ETHTOOL_LINK_MODE_25000baseSR_Full_BIT },
	{ MLX5E_40GBASE_CR4, SPEED_40000, ETHTOOL_LINK_MODE_40000baseCR4_Full_BIT },
	{ MLX5E_40GBASE_KR4, SPEED_40000, ETHTOOL_LINK_MODE_40000baseKR4_Full_BIT },
	{ MLX5E_40GBASE_SR4, SPEED_40000, ETHTOOL_LINK_MODE_40000baseSR4_Full_BIT },
	{ MLX5E_40GBASE_LR4, SPEED_40000, ETHTOOL_LINK_MODE_40000baseLR4_Full_BIT },
	{ MLX5E_50GBASE_CR2, SPEED_50000, ETHTOOL_LINK_MODE_50000baseCR2_Full_BIT },
	{ MLX5E_50GBASE_KR2, SPEED_50000, ETHTOOL_LINK_MODE_50000baseKR2_Full_BIT },
	{ MLX5E_50GBASE_SR2, SPEED_50000, ETHTOOL_LINK_MODE_50000baseSR2_Full_BIT },
	{ MLX5E_100GBASE_CR4, SPEED_100000, ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT },
	{ MLX5E_100GBASE_SR4, SPEED_100000, ETHTOOL_LINK_MODE_100000baseSR4_Full_BIT },
	{ MLX5E_100GBASE_KR4, SPEED_100000, ETHTOOL_LINK_MODE_100000baseKR4_Full_BIT },
	{ MLX5E_100GBASE_LR4, SPEED_100000, ETHTOOL_LINK_MODE_100000baseLR4_ER4_Full_BIT },
};

static void ptys_to_modes(u32 proto, unsigned long *modes, u32 *speed)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(link_modes); i++) {
		if (!(proto & MLX5E_PROT_MASK(link_modes[i].ptys)))
			continue;
		if (modes)
			__set_bit(link_modes[i].mode, modes);
		if (speed)
			*speed = max(*speed, link_modes[i].speed);
	}
}

static int get_link_ksettings(struct net_device *netdev,
			      struct ethtool_link_ksettings *ks)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);
	u32 reg[MLX5_ST_SZ_DW(ptys_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(ptys_reg)];
	u32 speed = 0;
	int err;

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.speed = SPEED_UNKNOWN;
	ks->base.duplex = DUPLEX_UNKNOWN;
	ks->base.port = PORT_OTHER;
	ks->base.autoneg = AUTONEG_DISABLE;

	MLX5_SET(ptys_reg, reg, local_port, 1);
	MLX5_SET(ptys_reg, reg, proto_mask, MLX5_PTYS_EN);
	err = mlx5sp_eth_access_reg(eth->mdev, MLX5_REG_PTYS, false, reg, out,
				    sizeof(reg));
	if (err)
		return err;
	ptys_to_modes(MLX5_GET(ptys_reg, out, eth_proto_capability),
		      ks->link_modes.supported, NULL);
	ptys_to_modes(MLX5_GET(ptys_reg, out, eth_proto_admin),
		      ks->link_modes.advertising, NULL);
	if (netif_carrier_ok(netdev)) {
		ptys_to_modes(MLX5_GET(ptys_reg, out, eth_proto_oper), NULL,
			      &speed);
		if (speed) {
			ks->base.speed = speed;
			ks->base.duplex = DUPLEX_FULL;
		}
	}
	return 0;
}

/* ethtool -S: in enum order (eth.h), then the link's. */
static const char sq_stat_names[ETH_SQ_NR][ETH_GSTRING_LEN] = {
	[ETH_SQ_PACKETS] = "tx_packets",
	[ETH_SQ_BYTES] = "tx_bytes",
	[ETH_SQ_CSUM_PARTIAL] = "tx_csum_partial",
	[ETH_SQ_CSUM_NONE] = "tx_csum_none",
	[ETH_SQ_STOPPED] = "tx_queue_stopped",
	[ETH_SQ_DROPPED] = "tx_dropped",
};

static const char poll_stat_names[ETH_POLL_NR][ETH_GSTRING_LEN] = {
	[ETH_TXC_WAKE] = "tx_queue_wake",
	[ETH_TXC_CQE_ERR] = "tx_cqe_err",
	[ETH_TXC_CQE_BAD] = "tx_cqe_bad",
	[ETH_TXC_RECOVER] = "tx_recover",
	[ETH_RX_PACKETS] = "rx_packets",
	[ETH_RX_BYTES] = "rx_bytes",
	[ETH_RX_CSUM_UNNECESSARY] = "rx_csum_unnecessary",
	[ETH_RX_CSUM_NONE] = "rx_csum_none",
	[ETH_RX_CQE_ERR] = "rx_cqe_err",
	[ETH_RX_CQE_BAD] = "rx_cqe_bad",
	[ETH_RX_DROPPED] = "rx_dropped",
	[ETH_RX_RECOVER] = "rx_recover",
};

static const char link_stat_names[ETH_LINK_NR][ETH_GSTRING_LEN] = {
	[ETH_LINK_UP] = "link_up_events",
	[ETH_LINK_DOWN] = "link_down_events",
};

#define ETH_NSTATS	(ETH_SQ_NR + ETH_POLL_NR + ETH_LINK_NR)

static int get_sset_count(struct net_device *netdev, int sset)
{
	return sset == ETH_SS_STATS ? ETH_NSTATS : -EOPNOTSUPP;
}

static void get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ETH_SQ_NR; i++)
		ethtool_puts(&data, sq_stat_names[i]);
	for (i = 0; i < ETH_POLL_NR; i++)
		ethtool_puts(&data, poll_stat_names[i]);
	for (i = 0; i < ETH_LINK_NR; i++)
		ethtool_puts(&data, link_stat_names[i]);
}

static void get_ethtool_stats(struct net_device *netdev,
			      struct ethtool_stats *stats, u64 *data)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);
	int i;

	mlx5sp_eth_get_stats(eth, data, data + ETH_SQ_NR);
	for (i = 0; i < ETH_LINK_NR; i++)
		data[ETH_SQ_NR + ETH_POLL_NR + i] =
			atomic64_read(&eth->link_stats[i]);
}

const struct ethtool_ops mlx5sp_eth_ethtool_ops = {
	.get_drvinfo = get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = get_link_ksettings,
	.get_sset_count = get_sset_count,
	.get_strings = get_strings,
	.get_ethtool_stats = get_ethtool_stats,
};
