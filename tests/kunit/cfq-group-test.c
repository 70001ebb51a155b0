// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the group service tree of the cfq elevator.  Included at
 * the end of block/cfq-group.c.
 */
#include <kunit/test.h>

static void cfq_test_weights(struct kunit *test)
{
	static const unsigned int want[IOPRIO_NR_LEVELS] = {
		8, 7, 6, 5, 4, 3, 2, 1,
	};
	unsigned int p;

	for (p = 0; p < IOPRIO_NR_LEVELS; p++)
		KUNIT_EXPECT_EQ(test, cfq_ioprio_to_weight(p), want[p]);
	KUNIT_EXPECT_EQ(test, CFQ_GROUP_WEIGHT_DEFAULT, 4);
}

static void cfq_test_charge(struct kunit *test)
{
	/* The default weight advances at wall speed; 8 at half, 1 at 4x. */
	KUNIT_EXPECT_EQ(test, cfq_vtime_charge(1000, 4), 1000ULL);
	KUNIT_EXPECT_EQ(test, cfq_vtime_charge(1000, 8), 500ULL);
	KUNIT_EXPECT_EQ(test, cfq_vtime_charge(1000, 1), 4000ULL);
	/* No overflow at the largest charge the elevator makes (seconds). */
	KUNIT_EXPECT_EQ(test, cfq_vtime_charge(10ULL * NSEC_PER_SEC, 1),
			40ULL * NSEC_PER_SEC);
}

static void cfq_test_tag_share(struct kunit *test)
{
	/* Alone, or the heaviest: every tag for reads, 3/4 for writes. */
	KUNIT_EXPECT_EQ(test, cfq_tag_share(128, 8, 8, false), 128U);
	KUNIT_EXPECT_EQ(test, cfq_tag_share(128, 4, 0, false), 128U);
	KUNIT_EXPECT_EQ(test, cfq_tag_share(128, 4, 4, true), 96U);
	/* Under a weight-8 group: 4 -> half, 1 -> an eighth. */
	KUNIT_EXPECT_EQ(test, cfq_tag_share(128, 4, 8, false), 64U);
	KUNIT_EXPECT_EQ(test, cfq_tag_share(128, 1, 8, false), 16U);
	KUNIT_EXPECT_EQ(test, cfq_tag_share(128, 1, 8, true), 12U);
	/* Never zero. */
	KUNIT_EXPECT_EQ(test, cfq_tag_share(2, 1, 8, true), 1U);
}

static void cfq_test_vtime_wrap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cfq_vtime_before(1, 2));
	KUNIT_EXPECT_FALSE(test, cfq_vtime_before(2, 2));
	KUNIT_EXPECT_TRUE(test, cfq_vtime_before(U64_MAX - 10, 5));
	KUNIT_EXPECT_FALSE(test, cfq_vtime_before(5, U64_MAX - 10));
}

/* An empty device: its lock and an empty group tree. */
static struct cfq_meta_data *cfq_test_cmd(struct kunit *test)
{
	struct cfq_meta_data *cmd = kunit_kzalloc(test, sizeof(*cmd),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	spin_lock_init(&cmd->lock);
	cmd->group_tree = RB_ROOT_CACHED;
	return cmd;
}

static void cfq_test_tree(struct kunit *test)
{
	struct cfq_meta_data *cmd;
	struct cfq_data *g;
	int i;

	cmd = cfq_test_cmd(test);
	g = kunit_kcalloc(test, 3, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	cmd->min_vdisktime = 1000;

	spin_lock_irq(&cmd->lock);
	/* A newly busy group starts no lower than the minimum. */
	g[0].vdisktime = 0;
	g[1].vdisktime = 5000;
	g[2].vdisktime = 3000;
	for (i = 0; i < 3; i++)
		cfq_gst_add(cmd, &g[i]);
	KUNIT_EXPECT_EQ(test, g[0].vdisktime, 1000ULL);
	KUNIT_EXPECT_PTR_EQ(test, cfq_gst_first(cmd), &g[0]);
	KUNIT_EXPECT_PTR_EQ(test, cfq_gst_next(&g[0]), &g[2]);

	/* Charging re-sorts: 3000 ns at weight 1 puts g0 at 13000. */
	cfq_gst_charge(cmd, &g[0], 3000, 1);
	KUNIT_EXPECT_EQ(test, g[0].vdisktime, 13000ULL);
	KUNIT_EXPECT_PTR_EQ(test, cfq_gst_first(cmd), &g[2]);

	/* The minimum follows the first group and never goes back. */
	cfq_gst_update_min(cmd);
	KUNIT_EXPECT_EQ(test, cmd->min_vdisktime, 3000ULL);
	cfq_gst_del(cmd, &g[2]);
	cfq_gst_del(cmd, &g[1]);
	cfq_gst_update_min(cmd);
	KUNIT_EXPECT_EQ(test, cmd->min_vdisktime, 13000ULL);
	cfq_gst_del(cmd, &g[0]);
	cfq_gst_update_min(cmd);
	KUNIT_EXPECT_EQ(test, cmd->min_vdisktime, 13000ULL);
	KUNIT_EXPECT_NULL(test, cfq_gst_first(cmd));
	spin_unlock_irq(&cmd->lock);
}

/*
 * Three always-busy groups at weights 8:4:1, each served in turn by
 * smallest vdisktime and charged 1 ms per turn: turns split 8:4:1.
 */
static void cfq_test_shares(struct kunit *test)
{
	static const unsigned int weight[3] = { 8, 4, 1 };
	unsigned int served[3] = {}, i;
	struct cfq_meta_data *cmd;
	struct cfq_data *g;

	cmd = cfq_test_cmd(test);
	g = kunit_kcalloc(test, 3, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);

	spin_lock_irq(&cmd->lock);
	for (i = 0; i < 3; i++)
		cfq_gst_add(cmd, &g[i]);
	for (i = 0; i < 1300; i++) {
		struct cfq_data *first = cfq_gst_first(cmd);
		int idx = first - g;

		served[idx]++;
		cfq_gst_charge(cmd, first, NSEC_PER_MSEC, weight[idx]);
	}
	spin_unlock_irq(&cmd->lock);
	/* Exact up to the order of ties in the last round. */
	KUNIT_EXPECT_LE(test, abs((int)served[0] - 800), 1);
	KUNIT_EXPECT_LE(test, abs((int)served[1] - 400), 1);
	KUNIT_EXPECT_LE(test, abs((int)served[2] - 100), 1);
}

/* Times read on other CPUs, or a plug's cached time, may run behind. */
static void cfq_test_clock(struct kunit *test)
{
	struct cfq_meta_data *cmd;

	cmd = cfq_test_cmd(test);
	spin_lock_irq(&cmd->lock);
	KUNIT_EXPECT_EQ(test, cfq_clock(cmd, 5000), 5000ULL);
	KUNIT_EXPECT_EQ(test, cfq_clock(cmd, 4000), 5000ULL);
	KUNIT_EXPECT_EQ(test, cfq_clock(cmd, 7000), 7000ULL);
	KUNIT_EXPECT_EQ(test, cmd->clock, 7000ULL);
	spin_unlock_irq(&cmd->lock);
}

static struct kunit_case cfq_group_cases[] = {
	KUNIT_CASE(cfq_test_weights),
	KUNIT_CASE(cfq_test_charge),
	KUNIT_CASE(cfq_test_tag_share),
	KUNIT_CASE(cfq_test_vtime_wrap),
	KUNIT_CASE(cfq_test_tree),
	KUNIT_CASE(cfq_test_shares),
	KUNIT_CASE(cfq_test_clock),
	{}
};

static struct kunit_suite cfq_group_suite = {
	.name = "cfq-group",
	.test_cases = cfq_group_cases,
};

kunit_test_suite(cfq_group_suite);
