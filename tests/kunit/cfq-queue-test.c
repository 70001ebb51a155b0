// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the per-task rules of the cfq elevator.  Included at the
 * end of block/cfq-queue.c, so static helpers need no export.
 */
#include <kunit/test.h>

#define MS	NSEC_PER_MSEC

struct cfq_slice_case {
	const char	*desc;
	u64		base;
	enum cfq_class	ioclass;
	unsigned int	level;
	u64		slice;
};

static const struct cfq_slice_case cfq_slice_cases[] = {
	{ "sync BE0",  100 * MS, CFQ_CLASS_BE, 0, 180 * MS },
	{ "sync BE3",  100 * MS, CFQ_CLASS_BE, 3, 120 * MS },
	{ "sync BE4",  100 * MS, CFQ_CLASS_BE, 4, 100 * MS },
	{ "sync BE7",  100 * MS, CFQ_CLASS_BE, 7,  40 * MS },
	{ "sync RT0",  100 * MS, CFQ_CLASS_RT, 0, 180 * MS },
	{ "sync RT7",  100 * MS, CFQ_CLASS_RT, 7,  40 * MS },
	{ "sync IDLE", 100 * MS, CFQ_CLASS_IDLE, 0, 40 * MS },
	{ "async BE0",  40 * MS, CFQ_CLASS_BE, 0,  72 * MS },
	{ "async BE4",  40 * MS, CFQ_CLASS_BE, 4,  40 * MS },
	{ "async BE7",  40 * MS, CFQ_CLASS_BE, 7,  16 * MS },
};

static void cfq_slice_desc(const struct cfq_slice_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cfq_slice, cfq_slice_cases, cfq_slice_desc);

/* base + base/5 * (4 - level): 180:100:40 for levels 0, 4, 7. */
static void cfq_test_prio_slice(struct kunit *test)
{
	const struct cfq_slice_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cfq_prio_slice(c->base, c->ioclass, c->level),
			c->slice);
}

static void cfq_test_scale_slice(struct kunit *test)
{
	/* Three queues of 100 ms fit a 300 ms target: unchanged. */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(180 * MS, 3, 100 * MS,
					      300 * MS, 16 * MS), 180 * MS);
	/* Six do not: halved, ratios kept. */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(180 * MS, 6, 100 * MS,
					      300 * MS, 16 * MS), 90 * MS);
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(40 * MS, 6, 100 * MS,
					      300 * MS, 16 * MS), 20 * MS);
	/* Never below the floor (2 * slice_idle) ... */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(100 * MS, 100, 100 * MS,
					      300 * MS, 16 * MS), 16 * MS);
	/* ... unless the slice itself is shorter. */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(10 * MS, 100, 100 * MS,
					      300 * MS, 16 * MS), 10 * MS);
	/* The largest tunables: slice x target exceeds 64 bits. */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(18000 * MS, 2, 10000 * MS,
					      10000 * MS, 16 * MS),
			9000 * MS);
}

struct cfq_prio_case {
	const char	*desc;
	u16		cls;		/* IOPRIO_CLASS_* */
	u16		lvl;		/* as ionice -n sets it */
	int		nice;
	enum cfq_class	ioclass;
	unsigned int	level;
};

static const struct cfq_prio_case cfq_prio_cases[] = {
	/* No class set: best effort, level (nice + 20) / 5. */
	{ "nice -20", IOPRIO_CLASS_NONE, 0, -20,
	  CFQ_CLASS_BE, 0 },
	{ "nice -1", IOPRIO_CLASS_NONE, 0, -1,
	  CFQ_CLASS_BE, 3 },
	{ "nice 0", IOPRIO_CLASS_NONE, 0, 0,
	  CFQ_CLASS_BE, 4 },
	{ "nice 5", IOPRIO_CLASS_NONE, 0, 5,
	  CFQ_CLASS_BE, 5 },
	{ "nice 19", IOPRIO_CLASS_NONE, 0, 19,
	  CFQ_CLASS_BE, 7 },
	/* An explicit class wins over nice. */
	{ "ionice -c1 -n2", IOPRIO_CLASS_RT, 2, 19,
	  CFQ_CLASS_RT, 2 },
	{ "ionice -c2 -n7", IOPRIO_CLASS_BE, 7, -20,
	  CFQ_CLASS_BE, 7 },
	{ "ionice -c3", IOPRIO_CLASS_IDLE, 0, 0,
	  CFQ_CLASS_IDLE, 0 },
	/* Classes past IDLE (no user can set them): as if none were set. */
	{ "class 5", 5, 0, 10,
	  CFQ_CLASS_BE, 6 },
};

static void cfq_prio_desc(const struct cfq_prio_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cfq_prio, cfq_prio_cases, cfq_prio_desc);

static void cfq_test_rq_prio(struct kunit *test)
{
	const struct cfq_prio_case *c = test->param_value;
	enum cfq_class ioclass;
	unsigned int level;

	cfq_rq_prio(IOPRIO_PRIO_VALUE(c->cls, c->lvl), c->nice, &ioclass,
		    &level);
	KUNIT_EXPECT_EQ(test, ioclass, c->ioclass);
	KUNIT_EXPECT_EQ(test, level, c->level);
}

static void cfq_test_fifo(struct kunit *test)
{
	u64 deadline = 1000 * MS;

	KUNIT_EXPECT_FALSE(test, cfq_fifo_expired(deadline - 1, deadline));
	KUNIT_EXPECT_TRUE(test, cfq_fifo_expired(deadline, deadline));
	KUNIT_EXPECT_TRUE(test, cfq_fifo_expired(deadline + 1, deadline));
	/* Wrap-safe: a deadline just past U64_MAX. */
	KUNIT_EXPECT_FALSE(test, cfq_fifo_expired(U64_MAX - 5, 10));
	KUNIT_EXPECT_TRUE(test, cfq_fifo_expired(11, U64_MAX - 5));
}

/* Head at 1000; back_seek_max 100 sectors, penalty 2. */
static void cfq_test_prefer_first(struct kunit *test)
{
	/* Sync before async, whatever the distance. */
	KUNIT_EXPECT_TRUE(test, cfq_prefer_first(1000, 9000, true, 1001,
						 false, 100, 2));
	/* Forward: the nearer. */
	KUNIT_EXPECT_TRUE(test, cfq_prefer_first(1000, 1010, true, 1020,
						 true, 100, 2));
	/* 30 back costs 60: loses to 50 ahead, beats 70 ahead. */
	KUNIT_EXPECT_FALSE(test, cfq_prefer_first(1000, 970, true, 1050,
						  true, 100, 2));
	KUNIT_EXPECT_TRUE(test, cfq_prefer_first(1000, 970, true, 1070,
						 true, 100, 2));
	/* Beyond back_seek_max: only if the other is too. */
	KUNIT_EXPECT_FALSE(test, cfq_prefer_first(1000, 800, true, 500000,
						  true, 100, 2));
	KUNIT_EXPECT_TRUE(test, cfq_prefer_first(1000, 800, true, 850,
						 true, 100, 2));
	/* Equal cost: the higher sector (no backward motion). */
	KUNIT_EXPECT_TRUE(test, cfq_prefer_first(1000, 1010, true, 995,
						 true, 100, 2));
}

static void cfq_test_seeky_and_ttime(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, cfq_seeky(0, 32));
	KUNIT_EXPECT_FALSE(test, cfq_seeky(0xff, 32));	/* 8 of 32 */
	KUNIT_EXPECT_TRUE(test, cfq_seeky(0x1ff, 32));	/* 9 of 32 */
	/* Fewer samples: only the bits seen count. */
	KUNIT_EXPECT_FALSE(test, cfq_seeky(0xfffffff1, 4));	/* 1 of 4 */
	KUNIT_EXPECT_TRUE(test, cfq_seeky(0x3, 4));		/* 2 of 4 */
	KUNIT_EXPECT_TRUE(test, cfq_seeky(0x1, 1));
	/* The first think-time sample is the mean; then 7/8 old + 1/8 new. */
	KUNIT_EXPECT_EQ(test, cfq_ttime_update(0, 0, 8 * MS), 8 * MS);
	KUNIT_EXPECT_EQ(test, cfq_ttime_update(0, 1, 8 * MS), MS);
	KUNIT_EXPECT_EQ(test, cfq_ttime_update(8 * MS, 5, 8 * MS), 8 * MS);
}

/*
 * A thinker's gap is filled (cfq_fill_gap()) only on a device known not to
 * be a disk: far requests measured under 4 ms, or seeks measured free.
 */
static void cfq_test_far_is_short(struct kunit *test)
{
	u64 mean[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS] = { };
	u32 n[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS] = { };
	u64 *small = mean[CFQ_SVC_SMALL], *large = mean[CFQ_SVC_LARGE];

	/* Nothing measured (a disk that took only cached writes): no. */
	KUNIT_EXPECT_FALSE(test, cfq_far_is_short(mean, n));
	/* Random 4 KiB reads at 1 ms, too few of them, then enough. */
	small[CFQ_SEEK_FAR] = MS;
	n[CFQ_SVC_SMALL][CFQ_SEEK_FAR] = CFQ_SVC_MIN_SAMPLES - 1;
	KUNIT_EXPECT_FALSE(test, cfq_far_is_short(mean, n));
	n[CFQ_SVC_SMALL][CFQ_SEEK_FAR] = CFQ_SVC_MIN_SAMPLES;
	KUNIT_EXPECT_TRUE(test, cfq_far_is_short(mean, n));
	/* A disk's random reads: a seek and half a turn. */
	small[CFQ_SEEK_FAR] = 8 * MS;
	KUNIT_EXPECT_FALSE(test, cfq_far_is_short(mean, n));
	small[CFQ_SEEK_FAR] = 4 * MS - 1;
	KUNIT_EXPECT_TRUE(test, cfq_far_is_short(mean, n));
	/* Short small ones, but large far ones a disk's: no. */
	large[CFQ_SEEK_FAR] = 12 * MS;
	n[CFQ_SVC_LARGE][CFQ_SEEK_FAR] = CFQ_SVC_MIN_SAMPLES;
	KUNIT_EXPECT_FALSE(test, cfq_far_is_short(mean, n));
	/* Long, but near ones as long: measured free, yes. */
	memset(n, 0, sizeof(n));
	small[CFQ_SEEK_NEAR] = 5 * MS;
	small[CFQ_SEEK_FAR] = 5 * MS;
	n[CFQ_SVC_SMALL][CFQ_SEEK_NEAR] = CFQ_SVC_MIN_SAMPLES;
	n[CFQ_SVC_SMALL][CFQ_SEEK_FAR] = CFQ_SVC_MIN_SAMPLES;
	KUNIT_EXPECT_TRUE(test, cfq_far_is_short(mean, n));
}

/*
 * Seeks are free only when both kinds were seen enough and cost alike, in
 * each request size measured.
 */
static void cfq_test_seeks_free(struct kunit *test)
{
	u64 mean[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS] = { { MS, MS } };
	u32 n[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS] = {
		{ CFQ_SVC_MIN_SAMPLES, CFQ_SVC_MIN_SAMPLES } };
	u64 *small = mean[CFQ_SVC_SMALL], *large = mean[CFQ_SVC_LARGE];
	u32 *ns = n[CFQ_SVC_SMALL], *nl = n[CFQ_SVC_LARGE];

	/* An emulated 1 ms disk: the same either way. */
	KUNIT_EXPECT_TRUE(test, cfq_seeks_free(mean, n));
	/* Half again as long is still free; more is a seek cost. */
	small[CFQ_SEEK_FAR] = MS + MS / 2;
	KUNIT_EXPECT_TRUE(test, cfq_seeks_free(mean, n));
	small[CFQ_SEEK_FAR] = MS + MS / 2 + 1;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
	/* A disk: 0.2 ms after a short move, 8 ms after a seek. */
	small[CFQ_SEEK_NEAR] = MS / 5;
	small[CFQ_SEEK_FAR] = 8 * MS;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
	/* Random reads within a track, 5 ms, against 12.5 ms seeks. */
	small[CFQ_SEEK_NEAR] = 5 * MS;
	small[CFQ_SEEK_FAR] = 12 * MS + MS / 2;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
	/* Too few of either kind: not known, so not free. */
	small[CFQ_SEEK_FAR] = MS / 5;
	ns[CFQ_SEEK_FAR] = CFQ_SVC_MIN_SAMPLES - 1;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
	ns[CFQ_SEEK_FAR] = CFQ_SVC_MIN_SAMPLES;
	ns[CFQ_SEEK_NEAR] = 0;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
	/*
	 * A disk read 1 MiB at a time near and 4 KiB far: 8 ms against
	 * 12 ms says nothing; each size alone lacks the other kind.
	 */
	small[CFQ_SEEK_FAR] = 12 * MS;
	large[CFQ_SEEK_NEAR] = 8 * MS;
	nl[CFQ_SEEK_NEAR] = CFQ_SVC_MIN_SAMPLES;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
	/* Large requests alike near and far, small ones not: not free. */
	ns[CFQ_SEEK_NEAR] = CFQ_SVC_MIN_SAMPLES;
	small[CFQ_SEEK_NEAR] = MS / 5;
	large[CFQ_SEEK_FAR] = 8 * MS;
	nl[CFQ_SEEK_FAR] = CFQ_SVC_MIN_SAMPLES;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
	small[CFQ_SEEK_NEAR] = 12 * MS;
	KUNIT_EXPECT_TRUE(test, cfq_seeks_free(mean, n));
	/*
	 * An NCQ disk where "near" 1 MiB reads often follow others' seeks:
	 * 16 against 23 ms is within half again, but 7 ms is a seek.
	 */
	large[CFQ_SEEK_NEAR] = 16 * MS;
	large[CFQ_SEEK_FAR] = 23 * MS;
	KUNIT_EXPECT_FALSE(test, cfq_seeks_free(mean, n));
}

/*
 * A write that the disk's cache took at once is charged what a read
 * costs; on a device of depth 1, the request that then waits behind the
 * write-back pays only its own read.
 */
static void cfq_test_media_charge(struct kunit *test)
{
	struct cfq_media m = { };
	int i;

	/* No reads seen yet: every request is charged what it took. */
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, true, CFQ_SVC_SMALL,
					       MS / 10), MS / 10);
	for (i = 0; i < CFQ_MEDIA_MIN_SAMPLES; i++)
		KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, false, true,
						       CFQ_SVC_SMALL, 12 * MS),
				12 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 0);
	/* Into the cache in 0.1 ms: charged a read, 11.9 ms owed. */
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, true, CFQ_SVC_SMALL,
					       MS / 10), 12 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 12 * MS - MS / 10);
	/* Large requests learn their own cost: none yet. */
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, true, CFQ_SVC_LARGE,
					       MS / 10), MS / 10);
	/* A read behind 10 ms of write-back: charged its 12 ms. */
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, false, true, CFQ_SVC_SMALL,
					       22 * MS), 12 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 2 * MS - MS / 10);
	/* Only what is owed is taken off. */
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, false, true, CFQ_SVC_SMALL,
					       22 * MS), 20 * MS + MS / 10);
	KUNIT_EXPECT_EQ(test, m.debt, 0);
	/* A write to the media (no cache) is charged what it took. */
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, true, CFQ_SVC_SMALL,
					       30 * MS), 30 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 0);
	/* The debt has a ceiling, and idle time pays it off. */
	for (i = 0; i < 1000; i++)
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.debt, CFQ_MEDIA_DEBT_MAX_NS);
	cfq_media_idle(&m, 400 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, CFQ_MEDIA_DEBT_MAX_NS - 400 * MS);
	cfq_media_idle(&m, 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, m.debt, 0);
}

/*
 * A cached write's price follows what its write-back costs: down when
 * more is owed than the device pays back (the debt's ceiling), up when
 * a read still waits behind write-back once the debt is paid (depth 1;
 * cfq_test_media_queue() for a deeper device).  A write that takes about
 * a read's time did not go into a cache: it teaches nothing (a device on
 * which every request costs the same, though it says it has a write
 * cache).
 */
static void cfq_test_media_price(struct kunit *test)
{
	struct cfq_media m = { };
	int i;

	for (i = 0; i < CFQ_MEDIA_MIN_SAMPLES; i++)
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 10 * MS);
	/* Nearly a read's time: the media's work, nothing owed or learned. */
	for (i = 0; i < 2 * CFQ_MEDIA_ADJUST_WRITES; i++)
		KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, true,
						       CFQ_SVC_SMALL, 9 * MS),
				9 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 0);
	KUNIT_EXPECT_FALSE(test, m.owing);
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0),
			10 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, 0);
	/* Owed past the ceiling: one step down per few writes. */
	for (i = 0; i < 100; i++)
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.debt, CFQ_MEDIA_DEBT_MAX_NS);
	KUNIT_EXPECT_EQ(test, m.write_step, -1);
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0),
			10 * MS * (CFQ_MEDIA_SCALE_ONE - 1) /
			CFQ_MEDIA_SCALE_ONE);
	/* Paid off while idle; a read still waits behind write-back. */
	cfq_media_idle(&m, 2 * NSEC_PER_SEC);
	for (i = 0; i < CFQ_MEDIA_ADJUST_WRITES; i++)
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	cfq_media_idle(&m, 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, false, true, CFQ_SVC_SMALL,
					       15 * MS), 15 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, 0);
	/* Once per debt: the next slow read is only a slow read. */
	cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 15 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, 0);
	/* Never under a quarter of a read. */
	for (i = 0; i < 10000; i++)
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.write_step,
			CFQ_MEDIA_SCALE_MIN - CFQ_MEDIA_SCALE_ONE);
}

/*
 * At depth 1, reads that spread around their mean by themselves do not
 * raise the price, nor drag the mean down by paying the debt off; a read
 * that waits behind write-back still does, after however many fast ones.
 */
static void cfq_test_media_spread(struct kunit *test)
{
	struct cfq_media m = { };
	u32 x = 1;
	int step, i;

	for (i = 0; i < CFQ_MEDIA_MIN_SAMPLES; i++)
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 10 * MS);
	/* A write into the cache, then a read of 2-18 ms: no wait in it. */
	for (i = 0; i < 2000; i++) {
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, MS / 5);
		x = x * 1103515245 + 12345;
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL,
				 2 * MS + (((u64)(x >> 16) * 16 * MS) >> 16));
	}
	KUNIT_EXPECT_LE(test, m.write_step, 0);
	KUNIT_EXPECT_GE(test, m.read_mean[CFQ_SVC_SMALL], 8 * MS);
	/* Owed, paid off while idle: a slow read after 100 fast ones. */
	step = m.write_step;
	for (i = 0; i < CFQ_MEDIA_ADJUST_WRITES; i++)
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	cfq_media_idle(&m, 2 * NSEC_PER_SEC);
	for (i = 0; i < 100; i++)
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 5 * MS);
	cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 30 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, step + 1);
}

/*
 * At depth 1, the write-back reads wait for once a debt is paid is what
 * the price fell short by for that debt's writes: the next cached write
 * raises the price by it (the first such read's step included), within
 * CFQ_MEDIA_CATCH_UP steps; a debt of fewer than CFQ_MEDIA_ADJUST_WRITES
 * writes teaches nothing yet and is counted with the next.
 */
static void cfq_test_media_catch_up(struct kunit *test)
{
	struct cfq_media m = { };
	int step, i;

	for (i = 0; i < CFQ_MEDIA_MIN_SAMPLES; i++)
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 10 * MS);
	/* 160 ms owed; reads wait 15 ms each: the eleventh outlasts it. */
	for (i = 0; i < 2 * CFQ_MEDIA_ADJUST_WRITES; i++)
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	for (i = 0; i < 11; i++)
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 25 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 0);
	KUNIT_EXPECT_EQ(test, m.write_step, 1);
	KUNIT_EXPECT_EQ(test, m.overrun, 5 * MS);
	/* Three more behind write-back: about 43 ms past the debt. */
	for (i = 0; i < 3; i++)
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 25 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, 1);
	KUNIT_EXPECT_GT(test, m.overrun, 40 * MS);
	/* Short by 2.8 steps for 16 writes at a 15.4 ms mean: two in all. */
	cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.write_step, 2);
	KUNIT_EXPECT_EQ(test, m.overrun, 0);
	KUNIT_EXPECT_EQ(test, m.debt_writes, 1);
	/* One write, then a read behind write-back: nothing learned yet. */
	step = m.write_step;
	cfq_media_idle(&m, 2 * NSEC_PER_SEC);
	cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 100 * MS);
	KUNIT_EXPECT_GT(test, m.overrun, 0);
	cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.write_step, step);
	KUNIT_EXPECT_EQ(test, m.debt_writes, 2);
	/* Never over three reads. */
	m.write_step = CFQ_MEDIA_SCALE_MAX - CFQ_MEDIA_SCALE_ONE - 1;
	m.overrun = CFQ_MEDIA_DEBT_MAX_NS;
	m.debt_writes = CFQ_MEDIA_ADJUST_WRITES;
	cfq_media_idle(&m, 2 * NSEC_PER_SEC);
	cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.write_step,
			CFQ_MEDIA_SCALE_MAX - CFQ_MEDIA_SCALE_ONE);
}

/*
 * A flush cfq sent at a writers' turn end: the writers are charged its
 * time less what their writes' price charged past their own, the debt is
 * gone, and the price moves half the way to what the flush measured.
 */
static void cfq_test_media_flushed(struct kunit *test)
{
	struct cfq_media m = {};
	int i;

	/* No reads timed: the price stays, the flush is charged whole. */
	KUNIT_EXPECT_EQ(test, cfq_media_flushed(&m, 30 * MS, 0, 8), 30 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, 0);
	for (i = 0; i < CFQ_MEDIA_MIN_SAMPLES; i++)
		cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 10 * MS);
	for (i = 0; i < 8; i++)
		cfq_media_charge(&m, true, true, CFQ_SVC_SMALL, MS / 10);
	KUNIT_EXPECT_EQ(test, m.debt, 8 * (10 * MS - MS / 10));
	/* 79.2 ms charged past the writes' time, 40 taken: too dear. */
	KUNIT_EXPECT_EQ(test, cfq_media_flushed(&m, 40 * MS,
						8 * (10 * MS - MS / 10), 8),
			40 * MS - 8 * (10 * MS - MS / 10));
	KUNIT_EXPECT_EQ(test, m.write_step, -3);	/* 7.8 steps, half */
	KUNIT_EXPECT_EQ(test, m.debt, 0);
	KUNIT_EXPECT_FALSE(test, m.owing);
	/* Took three reads a write: up, but never past the ceiling. */
	for (i = 0; i < 4; i++)
		cfq_media_flushed(&m, 8 * 30 * MS, 8 * 10 * MS, 8);
	KUNIT_EXPECT_EQ(test, m.write_step,
			CFQ_MEDIA_SCALE_MAX - CFQ_MEDIA_SCALE_ONE);
	/* Nothing priced since the last flush: the price stays. */
	KUNIT_EXPECT_EQ(test, cfq_media_flushed(&m, 5 * MS, 0, 0), 5 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step,
			CFQ_MEDIA_SCALE_MAX - CFQ_MEDIA_SCALE_ONE);
}

/*
 * With a queue in the disk, the write that waited for room pays the debt
 * off, not the reads, whose gaps are their queue's spread; and since
 * nothing pays it until the cache is full, each step down halves it.
 */
static void cfq_test_media_queue(struct kunit *test)
{
	struct cfq_media m = { };
	u64 price, debt;
	int i;

	for (i = 0; i < CFQ_MEDIA_MIN_SAMPLES; i++)
		cfq_media_charge(&m, false, false, CFQ_SVC_SMALL, 10 * MS);
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, false, CFQ_SVC_SMALL,
					       0), 10 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 10 * MS);
	/* Waited 6 ms for room: write-back already paid for. */
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, false, CFQ_SVC_SMALL,
					       6 * MS), 0);
	KUNIT_EXPECT_EQ(test, m.debt, 4 * MS);
	/* Waited longer than all that was owed: too cheap, a step up. */
	for (i = 1; i < CFQ_MEDIA_ADJUST_WRITES; i++)
		cfq_media_charge(&m, true, false, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, true, false, CFQ_SVC_SMALL,
					       80 * MS), 6 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, 0);
	KUNIT_EXPECT_EQ(test, m.write_step, 1);
	price = 10 * MS * (CFQ_MEDIA_SCALE_ONE + 1) / CFQ_MEDIA_SCALE_ONE;
	/* Owed past the ceiling: a step down, and half the debt kept. */
	for (i = 0; i < 1000 && m.write_step == 1; i++)
		cfq_media_charge(&m, true, false, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.write_step, 0);
	KUNIT_EXPECT_GE(test, m.debt, CFQ_MEDIA_DEBT_MAX_NS / 2);
	KUNIT_EXPECT_LE(test, m.debt, CFQ_MEDIA_DEBT_MAX_NS / 2 + price);
	/* The next step waits for half a ceiling of new debt. */
	price = 10 * MS;
	while (m.debt + price <= CFQ_MEDIA_DEBT_MAX_NS)
		cfq_media_charge(&m, true, false, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.write_step, 0);
	cfq_media_charge(&m, true, false, CFQ_SVC_SMALL, 0);
	KUNIT_EXPECT_EQ(test, m.write_step, -1);
	/* A read that took three times the mean pays none of the debt. */
	debt = m.debt;
	KUNIT_EXPECT_EQ(test, cfq_media_charge(&m, false, false, CFQ_SVC_SMALL,
					       30 * MS), 30 * MS);
	KUNIT_EXPECT_EQ(test, m.debt, debt);
	/* Nor, the debt paid off while idle, does it move the price. */
	for (i = 0; i < CFQ_MEDIA_ADJUST_WRITES; i++)
		cfq_media_charge(&m, true, false, CFQ_SVC_SMALL, 0);
	cfq_media_idle(&m, 2 * NSEC_PER_SEC);
	cfq_media_charge(&m, false, false, CFQ_SVC_SMALL, 30 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, -1);
	/* At depth 1 that read would have: write-back outlasted the debt. */
	cfq_media_charge(&m, false, true, CFQ_SVC_SMALL, 30 * MS);
	KUNIT_EXPECT_EQ(test, m.write_step, 0);
}

/* The per-group round robin orders queues by key, ties in arrival order. */
static void cfq_test_rr_order(struct kunit *test)
{
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct cfq_queue q[4] = {};
	static const u64 keys[4] = { 30, 10, 20, 10 };
	struct rb_node *n;
	int i, order[4], k = 0;

	for (i = 0; i < 4; i++) {
		q[i].rb_key = keys[i];
		rb_add_cached(&q[i].rb_node, &root, cfq_rr_less);
	}
	for (n = rb_first_cached(&root); n; n = rb_next(n))
		order[k++] = rb_entry(n, struct cfq_queue, rb_node) - q;
	KUNIT_EXPECT_EQ(test, k, 4);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, order[1], 3);
	KUNIT_EXPECT_EQ(test, order[2], 2);
	KUNIT_EXPECT_EQ(test, order[3], 0);
}

/*
 * On a disk, the next of the seeky queues is the one whose next request
 * lies nearest the head, among those whose turn came within two sync
 * slices of the first one's; a queue that does not seek, or counting in
 * I/Os, keeps plain turn order.
 */
static void cfq_test_rr_nearest(struct kunit *test)
{
	struct cfq_meta_data *cmd = kunit_kzalloc(test, sizeof(*cmd),
						  GFP_KERNEL);
	static const u64 keys[4] = { 0, 10 * MS, 20 * MS, 300 * MS };
	static const sector_t pos[4] = { 900000, 5000, 1100, 1001 };
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct cfq_queue *q;
	struct request *rq;
	struct rb_node *first;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	q = kunit_kcalloc(test, 4, sizeof(*q), GFP_KERNEL);
	rq = kunit_kcalloc(test, 4, sizeof(*rq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_TIME);
	cfq_tun_set(cmd, CFQ_SLICE_SYNC, 100);
	cmd->last_position = 1000;
	for (i = 0; i < 4; i++) {
		rq[i].__sector = pos[i];
		q[i].next_rq = &rq[i];
		q[i].rb_key = keys[i];
		q[i].seek_samples = 32;
		q[i].seek_history = U32_MAX;
		rb_add_cached(&q[i].rb_node, &root, cfq_rr_less);
	}
	first = rb_first_cached(&root);
	/* q3 is nearest, but its turn is 300 ms after q0's */
	KUNIT_EXPECT_PTR_EQ(test, cfq_rr_nearest(cmd, first), &q[2]);
	q[2].seek_history = 0;
	KUNIT_EXPECT_PTR_EQ(test, cfq_rr_nearest(cmd, first), &q[1]);
	q[0].seek_history = 0;
	KUNIT_EXPECT_PTR_EQ(test, cfq_rr_nearest(cmd, first), &q[0]);
	q[0].seek_history = U32_MAX;
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_IOPS);
	KUNIT_EXPECT_PTR_EQ(test, cfq_rr_nearest(cmd, first), &q[0]);
}

/* The device's depth changed: the next hook reads it (cfq_device_read()). */
static void cfq_test_hook(struct cfq_meta_data *cmd)
{
	spin_lock_irq(&cmd->lock);
	cfq_device_read(cmd);
	spin_unlock_irq(&cmd->lock);
}

/* A device of one hardware queue of depth 1, service counted in time. */
static struct cfq_meta_data *cfq_test_depth1_cmd(struct kunit *test)
{
	struct cfq_meta_data *cmd = kunit_kzalloc(test, sizeof(*cmd),
						  GFP_KERNEL);
	struct request_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	struct blk_mq_tag_set *set = kunit_kzalloc(test, sizeof(*set),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_NOT_NULL(test, set);
	q->tag_set = set;
	set->queue_depth = 1;
	cmd->queue = q;
	cmd->nr_hw = 1;
	spin_lock_init(&cmd->lock);
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_TIME);
	cfq_test_hook(cmd);
	return cmd;
}

/* Requests of @size and @kind measured enough, taking @mean ns each. */
static void cfq_test_measured(struct cfq_meta_data *cmd,
			      enum cfq_svc_size size, enum cfq_seek_kind kind,
			      u64 mean)
{
	cmd->svc_mean[size][kind] = mean;
	cmd->svc_samples[size][kind] = CFQ_SVC_MIN_SAMPLES;
}

/*
 * A seeky queue is idled for only on a disk that holds one command at a
 * time and has a seek cost: not with command queueing, not where seeks
 * are free, not when service is counted in requests; with far requests
 * alone measured, once they take 4 ms or more.
 */
static void cfq_test_idles_seeky(struct kunit *test)
{
	struct cfq_meta_data *cmd = cfq_test_depth1_cmd(test);
	struct request_queue *q = cmd->queue;
	struct blk_mq_tag_set *set = q->tag_set;

	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_NEAR, MS);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_FAR, 10 * MS);
	KUNIT_EXPECT_TRUE(test, cfq_idles_seeky(cmd));
	set->queue_depth = 32;
	cfq_test_hook(cmd);
	KUNIT_EXPECT_FALSE(test, cfq_idles_seeky(cmd));
	q->queue_depth = 1;			/* a SCSI device's own depth */
	cfq_test_hook(cmd);
	KUNIT_EXPECT_TRUE(test, cfq_idles_seeky(cmd));
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_IOPS);
	KUNIT_EXPECT_FALSE(test, cfq_idles_seeky(cmd));
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_TIME);
	cmd->svc_mean[CFQ_SVC_SMALL][CFQ_SEEK_FAR] = MS;	/* null_blk */
	KUNIT_EXPECT_FALSE(test, cfq_idles_seeky(cmd));
	/* Random readers alone: far requests only. */
	cmd->svc_samples[CFQ_SVC_SMALL][CFQ_SEEK_NEAR] = 0;
	cmd->svc_mean[CFQ_SVC_SMALL][CFQ_SEEK_FAR] = 3 * MS / 2;
	KUNIT_EXPECT_FALSE(test, cfq_idles_seeky(cmd));
	cmd->svc_mean[CFQ_SVC_SMALL][CFQ_SEEK_FAR] = 8 * MS;
	KUNIT_EXPECT_TRUE(test, cfq_idles_seeky(cmd));
}

/*
 * On a disk of depth 1 the sync slices are based on at least 8 far
 * requests, between slice_sync (100 ms) and twice that: 4 KiB far reads
 * of 10 ms leave 100 ms, far 1 MiB reads of 16 ms give 128 ms, of 30 ms
 * the cap of 200 ms.  With command queueing, or counting requests, the
 * base is slice_sync.
 */
static void cfq_test_sync_base(struct kunit *test)
{
	struct cfq_meta_data *cmd = cfq_test_depth1_cmd(test);
	struct blk_mq_tag_set *set = cmd->queue->tag_set;

	cfq_tun_set(cmd, CFQ_SLICE_SYNC, 100);
	KUNIT_EXPECT_EQ(test, cfq_sync_base(cmd), 100 * MS);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_FAR, 10 * MS);
	KUNIT_EXPECT_EQ(test, cfq_sync_base(cmd), 100 * MS);
	cfq_test_measured(cmd, CFQ_SVC_LARGE, CFQ_SEEK_FAR, 16 * MS);
	KUNIT_EXPECT_EQ(test, cfq_sync_base(cmd), 128 * MS);
	cfq_test_measured(cmd, CFQ_SVC_LARGE, CFQ_SEEK_FAR, 30 * MS);
	KUNIT_EXPECT_EQ(test, cfq_sync_base(cmd), 200 * MS);
	set->queue_depth = 32;
	cfq_test_hook(cmd);
	KUNIT_EXPECT_EQ(test, cfq_sync_base(cmd), 100 * MS);
	set->queue_depth = 1;
	cfq_test_hook(cmd);
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_IOPS);
	KUNIT_EXPECT_EQ(test, cfq_sync_base(cmd), 100 * MS);
}

/*
 * The shortest slice low_latency leaves: two idle windows, and where
 * seeks cost, ten of the longest far requests measured: 90 ms on a disk
 * whose far 4 KiB reads take 9 ms, 140 ms once far 1 MiB reads of 14 ms
 * are measured.  Far requests of 1.4 ms (d1-rot) make 14 ms, under the
 * two idle windows; slice_idle 0 leaves the far requests' floor; where
 * seeks are free, or requests are counted, only the idle windows count.
 */
static void cfq_test_low_slice(struct kunit *test)
{
	struct cfq_meta_data *cmd = cfq_test_depth1_cmd(test);

	cfq_tun_set(cmd, CFQ_SLICE_IDLE, 8);
	KUNIT_EXPECT_EQ(test, cfq_low_slice(cmd), 16 * MS);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_NEAR, MS / 5);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_FAR, 9 * MS);
	KUNIT_EXPECT_EQ(test, cfq_low_slice(cmd), 90 * MS);
	cfq_test_measured(cmd, CFQ_SVC_LARGE, CFQ_SEEK_FAR, 14 * MS);
	KUNIT_EXPECT_EQ(test, cfq_low_slice(cmd), 140 * MS);
	cmd->svc_samples[CFQ_SVC_LARGE][CFQ_SEEK_FAR] = 0;
	cfq_tun_set(cmd, CFQ_SLICE_IDLE, 0);
	KUNIT_EXPECT_EQ(test, cfq_low_slice(cmd), 90 * MS);
	cfq_tun_set(cmd, CFQ_SLICE_IDLE, 8);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_FAR, 7 * MS / 5);
	KUNIT_EXPECT_EQ(test, cfq_low_slice(cmd), 16 * MS);
	/* seeks free */
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_NEAR, MS);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_FAR, 5 * MS / 4);
	cfq_tun_set(cmd, CFQ_SLICE_IDLE, 0);
	KUNIT_EXPECT_EQ(test, cfq_low_slice(cmd), 0);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_NEAR, MS / 5);
	cfq_test_measured(cmd, CFQ_SVC_SMALL, CFQ_SEEK_FAR, 9 * MS);
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_IOPS);
	KUNIT_EXPECT_EQ(test, cfq_low_slice(cmd), 0);
}

/*
 * Idling for the active queue: the whole window while the slice has that
 * much left; then, in time mode, what is left, while that is more than
 * the queue's mean think time; then none.  A queue whose slice has not
 * started is not idled for.
 */
static void cfq_test_queue_idle_for(struct kunit *test)
{
	struct cfq_meta_data *cmd = cfq_test_depth1_cmd(test);
	struct cfq_queue *cfqq = kunit_kzalloc(test, sizeof(*cfqq),
					       GFP_KERNEL);

	cfq_tun_set(cmd, CFQ_SLICE_IDLE, 8);
	cfqq->slice_end = 40 * MS;
	cfqq->ttime_mean = MS / 20;
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 0), 0);
	__set_bit(CFQQ_SLICE_STARTED, &cfqq->flags);
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 0), 8 * MS);
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 32 * MS), 8 * MS);
	/* Within the last window: idled for the rest of the slice. */
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 35 * MS), 5 * MS);
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 40 * MS - MS / 10),
			MS / 10);
	/* No more left than the task thinks, or nothing left. */
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 40 * MS - MS / 20),
			0);
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 40 * MS), 0);
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 50 * MS), 0);
	cfqq->ttime_mean = 6 * MS;
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 35 * MS), 0);
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 33 * MS), 7 * MS);
	/* Counted in I/Os: only while a whole window is left. */
	cmd->iops = true;
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 31 * MS), 8 * MS);
	KUNIT_EXPECT_EQ(test, cfq_queue_idle_for(cmd, cfqq, 32 * MS), 0);
}

/* A sync queue of @cfqd at BE @level with one request queued. */
static void cfq_test_fill_queue_init(struct cfq_data *cfqd,
				     struct cfq_queue *cfqq,
				     unsigned int level)
{
	cfqq->cfqd = cfqd;
	cfqq->ioclass = CFQ_CLASS_BE;
	cfqq->ioprio = level;
	cfqq->fill_charge = cfq_fill_charge(cfqq);
	cfqq->queued = 1;
	__set_bit(CFQQ_SYNC, &cfqq->flags);
}

/*
 * Concurrent service within a group: while a level-0 queue is served, a
 * level-7 queue may use a free slot only while its fill_vt is not ahead,
 * one request for every 4.5 of the active queue's (slices 180:40) once
 * they completed, past the quantum if it is sync; the active queue keeps
 * its slice while it is behind, also between two reads of its task if it
 * is idled for; a queue back from a pause joins at
 * fill_min, one back from a gap it did not choose keeps up to
 * CFQ_FILL_KEEP of credit.
 */
static void cfq_test_fill_queue(struct kunit *test)
{
	struct cfq_meta_data *cmd = kunit_kzalloc(test, sizeof(*cmd),
						  GFP_KERNEL);
	struct cfq_data *cfqd = kunit_kzalloc(test, sizeof(*cfqd), GFP_KERNEL);
	struct cfq_io_cq *cic;
	struct cfq_queue *a, *b;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, cfqd);
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	cic = kunit_kzalloc(test, sizeof(*cic), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, cic);
	spin_lock_init(&cmd->lock);
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_IOPS);
	cfq_tun_set(cmd, CFQ_FILL_SLOTS, 1);
	cfq_tun_set(cmd, CFQ_QUANTUM, 8);
	cfq_tun_set(cmd, CFQ_SLICE_IDLE, 8);
	cfqd->service_tree[CFQ_CLASS_BE] = RB_ROOT_CACHED;
	cfq_test_fill_queue_init(cfqd, a, 0);
	cfq_test_fill_queue_init(cfqd, b, 7);
	KUNIT_EXPECT_EQ(test, a->fill_charge, (u32)(CFQ_FILL_UNIT / 180));
	KUNIT_EXPECT_EQ(test, b->fill_charge, (u32)(CFQ_FILL_UNIT / 40));

	spin_lock_irq(&cmd->lock);
	cfqd->active_queue = a;
	rb_add_cached(&b->rb_node, &cfqd->service_tree[CFQ_CLASS_BE],
		      cfq_rr_less);
	KUNIT_EXPECT_PTR_EQ(test, cfq_fill_queue(cmd, cfqd), b);
	b->fill_vt += b->fill_charge;
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_NULL(test, cfq_fill_queue(cmd, cfqd));
		a->fill_vt += a->fill_charge;
	}
	KUNIT_EXPECT_NULL(test, cfq_fill_queue(cmd, cfqd));
	a->fill_vt += a->fill_charge;		/* the fifth */
	a->dispatched = 1;			/* and it is in the driver */
	KUNIT_EXPECT_NULL(test, cfq_fill_queue(cmd, cfqd));
	a->dispatched = 0;			/* it completed */
	KUNIT_EXPECT_PTR_EQ(test, cfq_fill_queue(cmd, cfqd), b);
	/*
	 * The quantum holds the served queue; a sync queue filled may take
	 * the device's slots but the served queue's quantum, as its fill_vt
	 * allows.
	 */
	cmd->hw_depth = 32;
	b->dispatched = cmd->tun[CFQ_QUANTUM];
	KUNIT_EXPECT_PTR_EQ(test, cfq_fill_queue(cmd, cfqd), b);
	b->dispatched = 32 - cmd->tun[CFQ_QUANTUM];
	KUNIT_EXPECT_NULL(test, cfq_fill_queue(cmd, cfqd));
	b->dispatched = cmd->tun[CFQ_QUANTUM];
	b->fill_vt += b->fill_charge;		/* ahead: not now */
	KUNIT_EXPECT_NULL(test, cfq_fill_queue(cmd, cfqd));
	b->fill_vt -= b->fill_charge;
	__clear_bit(CFQQ_SYNC, &b->flags);	/* async: the quantum */
	KUNIT_EXPECT_NULL(test, cfq_fill_queue(cmd, cfqd));
	__set_bit(CFQQ_SYNC, &b->flags);
	cmd->hw_depth = 8;			/* no more than a quantum */
	KUNIT_EXPECT_NULL(test, cfq_fill_queue(cmd, cfqd));
	cmd->hw_depth = 32;
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_TIME);
	KUNIT_EXPECT_FALSE(test, cfq_may_fill(cmd, b));	/* time mode */
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_IOPS);
	b->dispatched = 0;

	/* Behind the next queue: A keeps the device at its slice's end. */
	KUNIT_EXPECT_FALSE(test, cfq_fill_owed(cmd, a, MS));
	a->fill_vt = b->fill_vt - 1;
	KUNIT_EXPECT_TRUE(test, cfq_fill_owed(cmd, a, MS));
	a->queued = 0;				/* nothing queued or in flight */
	KUNIT_EXPECT_FALSE(test, cfq_fill_owed(cmd, a, MS));
	a->dispatched = 1;			/* its last part in flight */
	KUNIT_EXPECT_TRUE(test, cfq_fill_owed(cmd, a, MS));
	/*
	 * Between two reads of its task, idled for: owed while its last
	 * completion is within slice_idle (8 ms).
	 */
	a->dispatched = 0;
	cmd->depth = 64;			/* tags not all held */
	a->cic = cic;				/* its task still owns it */
	__set_bit(CFQQ_IDLE_WINDOW, &a->flags);
	a->last_end = MS;
	KUNIT_EXPECT_TRUE(test, cfq_fill_owed(cmd, a, 2 * MS));
	KUNIT_EXPECT_FALSE(test, cfq_fill_owed(cmd, a, 10 * MS));
	__clear_bit(CFQQ_IDLE_WINDOW, &a->flags);	/* not idled for */
	KUNIT_EXPECT_FALSE(test, cfq_fill_owed(cmd, a, 2 * MS));
	a->cic = NULL;
	a->last_end = 0;
	cmd->depth = 0;
	a->dispatched = 1;
	cfq_tun_set(cmd, CFQ_FILL_SLOTS, 0);
	KUNIT_EXPECT_FALSE(test, cfq_fill_owed(cmd, a, MS));
	cfq_tun_set(cmd, CFQ_FILL_SLOTS, 1);

	/* Joining: after a pause at fill_min, after a gap with credit kept. */
	cfqd->fill_min = 40 * CFQ_FILL_UNIT;
	b->fill_vt = 0;
	b->last_end = 0;
	cfq_fill_join(cmd, b, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, b->fill_vt, cfqd->fill_min);
	a->fill_vt = 0;
	cfq_fill_join(cmd, a, NSEC_PER_SEC);	/* a request in the driver */
	KUNIT_EXPECT_EQ(test, a->fill_vt, cfqd->fill_min - CFQ_FILL_KEEP);
	a->dispatched = 0;
	a->fill_vt = cfqd->fill_min - CFQ_FILL_UNIT;
	a->last_end = NSEC_PER_SEC;		/* back within slice_idle */
	cfq_fill_join(cmd, a, NSEC_PER_SEC + 7 * MS);
	KUNIT_EXPECT_EQ(test, a->fill_vt, cfqd->fill_min - CFQ_FILL_UNIT);
	cfq_fill_join(cmd, a, NSEC_PER_SEC + 9 * MS);	/* a pause */
	KUNIT_EXPECT_EQ(test, a->fill_vt, cfqd->fill_min);
	spin_unlock_irq(&cmd->lock);
}

/*
 * On a disk with a seek cost, a queue worth idling for puts its first
 * request in the driver only once the others' have left it; once its
 * slice runs, or where seeks are free or service is counted in I/Os, it
 * does not wait.
 */
static void cfq_test_drain_before_idle_slice(struct kunit *test)
{
	struct cfq_meta_data *cmd = kunit_kzalloc(test, sizeof(*cmd),
						  GFP_KERNEL);
	struct cfq_data *cfqd = kunit_kzalloc(test, sizeof(*cfqd), GFP_KERNEL);
	struct cfq_queue *cfqq = kunit_kzalloc(test, sizeof(*cfqq),
					       GFP_KERNEL);
	int k;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, cfqd);
	KUNIT_ASSERT_NOT_NULL(test, cfqq);
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_TIME);
	cfq_tun_set(cmd, CFQ_QUANTUM, 8);
	cfq_tun_set(cmd, CFQ_SLICE_IDLE, 8);
	cmd->depth = 64;
	cfq_test_fill_queue_init(cfqd, cfqq, 4);
	cfqq->cic = kunit_kzalloc(test, sizeof(*cfqq->cic), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cfqq->cic);
	__set_bit(CFQQ_IDLE_WINDOW, &cfqq->flags);

	KUNIT_EXPECT_TRUE(test, cfq_may_dispatch(cmd, cfqq));
	cmd->in_driver = 3;			/* seeky queues' requests */
	KUNIT_EXPECT_FALSE(test, cfq_may_dispatch(cmd, cfqq));
	__set_bit(CFQQ_SLICE_STARTED, &cfqq->flags);
	KUNIT_EXPECT_TRUE(test, cfq_may_dispatch(cmd, cfqq));
	__clear_bit(CFQQ_SLICE_STARTED, &cfqq->flags);
	__clear_bit(CFQQ_IDLE_WINDOW, &cfqq->flags);
	KUNIT_EXPECT_TRUE(test, cfq_may_dispatch(cmd, cfqq));
	__set_bit(CFQQ_IDLE_WINDOW, &cfqq->flags);
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_IOPS);
	KUNIT_EXPECT_TRUE(test, cfq_may_dispatch(cmd, cfqq));
	cfq_tun_set(cmd, CFQ_SERVICE_MODE, CFQ_SERVICE_TIME);
	for (k = 0; k < CFQ_NR_SEEK_KINDS; k++) {	/* a 1 ms null_blk */
		cmd->svc_mean[CFQ_SVC_SMALL][k] = MS;
		cmd->svc_samples[CFQ_SVC_SMALL][k] = CFQ_SVC_MIN_SAMPLES;
	}
	KUNIT_EXPECT_TRUE(test, cfq_may_dispatch(cmd, cfqq));
}

static struct kunit_case cfq_queue_cases[] = {
	KUNIT_CASE_PARAM(cfq_test_prio_slice, cfq_slice_gen_params),
	KUNIT_CASE(cfq_test_scale_slice),
	KUNIT_CASE_PARAM(cfq_test_rq_prio, cfq_prio_gen_params),
	KUNIT_CASE(cfq_test_fifo),
	KUNIT_CASE(cfq_test_prefer_first),
	KUNIT_CASE(cfq_test_seeky_and_ttime),
	KUNIT_CASE(cfq_test_seeks_free),
	KUNIT_CASE(cfq_test_far_is_short),
	KUNIT_CASE(cfq_test_media_charge),
	KUNIT_CASE(cfq_test_media_price),
	KUNIT_CASE(cfq_test_media_spread),
	KUNIT_CASE(cfq_test_media_catch_up),
	KUNIT_CASE(cfq_test_media_queue),
	KUNIT_CASE(cfq_test_media_flushed),
	KUNIT_CASE(cfq_test_rr_order),
	KUNIT_CASE(cfq_test_rr_nearest),
	KUNIT_CASE(cfq_test_idles_seeky),
	KUNIT_CASE(cfq_test_sync_base),
	KUNIT_CASE(cfq_test_low_slice),
	KUNIT_CASE(cfq_test_queue_idle_for),
	KUNIT_CASE(cfq_test_fill_queue),
	KUNIT_CASE(cfq_test_drain_before_idle_slice),
	{}
};

static struct kunit_suite cfq_queue_suite = {
	.name = "cfq-queue",
	.test_cases = cfq_queue_cases,
};

kunit_test_suite(cfq_queue_suite);
