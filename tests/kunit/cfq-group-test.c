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
	cmd->idle_tree = RB_ROOT_CACHED;
	return cmd;
}

/* @n groups of the default weight, with BE work (as if busy). */
static struct cfq_data *cfq_test_groups(struct kunit *test, int n)
{
	struct cfq_data *g = kunit_kcalloc(test, n, sizeof(*g), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, g);
	for (i = 0; i < n; i++) {
		g[i].weight = CFQ_GROUP_WEIGHT_DEFAULT;
		g[i].busy[CFQ_CLASS_BE] = 1;
	}
	return g;
}

static void cfq_test_tree(struct kunit *test)
{
	struct cfq_meta_data *cmd;
	struct cfq_data *g;
	int i;

	cmd = cfq_test_cmd(test);
	g = cfq_test_groups(test, 3);
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
	g = cfq_test_groups(test, 3);

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

/*
 * The minimum follows the served group as it is charged, also while it
 * has the device to itself: a group that becomes busy after another ran
 * alone for a second starts where that one is, not where it started, so
 * it is owed nothing for the time it was not there.
 */
static void cfq_test_min_follows_served(struct kunit *test)
{
	struct cfq_meta_data *cmd = cfq_test_cmd(test);
	struct cfq_data *g = cfq_test_groups(test, 2);
	int i;

	spin_lock_irq(&cmd->lock);
	cmd->active = &g[0];		/* alone: its turns renew in place */
	for (i = 1; i <= 100; i++) {
		cfq_gst_charge(cmd, &g[0], 10 * NSEC_PER_MSEC, 4);
		KUNIT_EXPECT_EQ(test, cmd->min_vdisktime,
				(u64)i * 10 * NSEC_PER_MSEC);
	}
	cfq_gst_add(cmd, &g[1]);
	KUNIT_EXPECT_EQ(test, g[1].vdisktime, (u64)NSEC_PER_SEC);
	/* From here on the two alternate: the newcomer is owed nothing. */
	KUNIT_EXPECT_FALSE(test, cfq_vtime_before(g[1].vdisktime,
						  g[0].vdisktime));
	/* The waiting group holds the minimum once the served one passes. */
	cfq_gst_charge(cmd, &g[0], 10 * NSEC_PER_MSEC, 4);
	KUNIT_EXPECT_EQ(test, cmd->min_vdisktime, (u64)NSEC_PER_SEC);
	cfq_gst_del(cmd, &g[1]);
	cmd->active = NULL;
	spin_unlock_irq(&cmd->lock);
}

/*
 * A group with IDLE-class work only waits on a tree of its own: it is not
 * picked while others have work, so it must neither hold the minimum back
 * nor count as a group waiting for the device.  Once it has BE work it
 * joins the others, no earlier than the minimum.
 */
static void cfq_test_idle_only_group(struct kunit *test)
{
	struct cfq_meta_data *cmd = cfq_test_cmd(test);
	struct cfq_data *g = cfq_test_groups(test, 2);
	struct cfq_data *idle = &g[1];

	idle->busy[CFQ_CLASS_BE] = 0;
	idle->busy[CFQ_CLASS_IDLE] = 1;

	spin_lock_irq(&cmd->lock);
	cfq_gst_add(cmd, idle);
	KUNIT_EXPECT_TRUE(test, idle->tree == &cmd->idle_tree);
	KUNIT_EXPECT_NULL(test, cfq_gst_first(cmd));
	cmd->active = &g[0];
	KUNIT_EXPECT_FALSE(test, cfq_others_waiting(cmd, &g[0]));
	cfq_gst_charge(cmd, &g[0], 5 * NSEC_PER_MSEC, 4);
	KUNIT_EXPECT_EQ(test, cmd->min_vdisktime, 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, idle->vdisktime, 0ULL);

	/* A BE request: it moves over and competes from the minimum. */
	idle->busy[CFQ_CLASS_BE] = 1;
	cfq_gst_requeue(cmd, idle);
	KUNIT_EXPECT_TRUE(test, idle->tree == &cmd->group_tree);
	KUNIT_EXPECT_EQ(test, idle->vdisktime, 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_TRUE(test, cfq_others_waiting(cmd, &g[0]));
	/* ... and back when only IDLE work is left. */
	idle->busy[CFQ_CLASS_BE] = 0;
	cfq_gst_requeue(cmd, idle);
	KUNIT_EXPECT_TRUE(test, idle->tree == &cmd->idle_tree);
	KUNIT_EXPECT_FALSE(test, cfq_others_waiting(cmd, &g[0]));
	cfq_gst_del(cmd, idle);
	KUNIT_EXPECT_NULL(test, idle->tree);
	cmd->active = NULL;
	spin_unlock_irq(&cmd->lock);
}

/* Busy groups are counted by weight: equals and extremes in O(1). */
static void cfq_test_busy_weights(struct kunit *test)
{
	struct cfq_meta_data *cmd = cfq_test_cmd(test);
	struct cfq_data *g = cfq_test_groups(test, 3);

	g[2].weight = 8;
	spin_lock_irq(&cmd->lock);
	KUNIT_EXPECT_TRUE(test, cfq_group_among_equals(cmd, &g[0]));
	cfq_group_count_busy(cmd, &g[0], 1);
	cfq_group_count_busy(cmd, &g[1], 1);
	KUNIT_EXPECT_TRUE(test, cfq_group_among_equals(cmd, &g[0]));
	KUNIT_EXPECT_EQ(test, cmd->max_weight, 4U);
	cfq_group_count_busy(cmd, &g[2], 1);
	KUNIT_EXPECT_FALSE(test, cfq_group_among_equals(cmd, &g[0]));
	KUNIT_EXPECT_FALSE(test, cfq_group_among_equals(cmd, &g[2]));
	KUNIT_EXPECT_EQ(test, cmd->max_weight, 8U);
	KUNIT_EXPECT_EQ(test, cmd->min_weight, 4U);
	cfq_group_count_busy(cmd, &g[0], -1);
	cfq_group_count_busy(cmd, &g[1], -1);
	KUNIT_EXPECT_TRUE(test, cfq_group_among_equals(cmd, &g[2]));
	KUNIT_EXPECT_EQ(test, cmd->min_weight, 8U);
	cfq_group_count_busy(cmd, &g[2], -1);
	KUNIT_EXPECT_EQ(test, cmd->max_weight, 0U);
	KUNIT_EXPECT_EQ(test, cmd->nr_busy_groups, 0U);
	spin_unlock_irq(&cmd->lock);
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
	KUNIT_CASE(cfq_test_min_follows_served),
	KUNIT_CASE(cfq_test_idle_only_group),
	KUNIT_CASE(cfq_test_busy_weights),
	KUNIT_CASE(cfq_test_clock),
	{}
};

static struct kunit_suite cfq_group_suite = {
	.name = "cfq-group",
	.test_cases = cfq_group_cases,
};

kunit_test_suite(cfq_group_suite);
