// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the cfq cgroup subsystem's input parsing and its
 * priority <-> weight rules.  Included at the end of block/cfq-cgroup.c.
 */
#include <kunit/test.h>

struct cfq_parse_case {
	const char	*input;
	int		ret;
	unsigned int	ioprio;
};

static const struct cfq_parse_case cfq_parse_cases[] = {
	{ "0",		  0,	   0 },
	{ "7\n",	  0,	   7 },
	{ "4",		  0,	   4 },
	{ "+2",		  0,	   2 },
	{ "8",		  -EINVAL, 0 },
	{ "-1",		  -EINVAL, 0 },
	{ "abc",	  -EINVAL, 0 },
	{ "",		  -EINVAL, 0 },
	{ "\n",		  -EINVAL, 0 },
	{ "4x",		  -EINVAL, 0 },
	{ " 4",		  -EINVAL, 0 },
	{ "0x4",	  -EINVAL, 0 },
	{ "99999999999",  -EINVAL, 0 },
	{ "4294967300",	  -EINVAL, 0 },
};

static void cfq_parse_desc(const struct cfq_parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->input);
}

KUNIT_ARRAY_PARAM(cfq_parse, cfq_parse_cases, cfq_parse_desc);

static void cfq_test_parse_ioprio(struct kunit *test)
{
	const struct cfq_parse_case *c = test->param_value;
	unsigned int ioprio = 0;

	KUNIT_EXPECT_EQ(test, cfq_parse_ioprio(c->input, &ioprio), c->ret);
	KUNIT_EXPECT_EQ(test, ioprio, c->ioprio);
}

struct cfq_weight_case {
	const char		*input;
	int			ret;
	enum cfq_weight_op	op;
	unsigned int		major, minor, weight;
};

static const struct cfq_weight_case cfq_weight_cases[] = {
	{ "100",		0, CFQ_WEIGHT_SET_DEFAULT, 0, 0, 100 },
	{ "1\n",		0, CFQ_WEIGHT_SET_DEFAULT, 0, 0, 1 },
	{ "default 10000",	0, CFQ_WEIGHT_SET_DEFAULT, 0, 0, 10000 },
	{ "  default\t250\n",	0, CFQ_WEIGHT_SET_DEFAULT, 0, 0, 250 },
	{ "8:16 800",		0, CFQ_WEIGHT_SET_DEV, 8, 16, 800 },
	{ "252:0 default",	0, CFQ_WEIGHT_DROP_DEV, 252, 0, 0 },
	{ "0",			-EINVAL },
	{ "10001",		-EINVAL },
	{ "-1",			-EINVAL },
	{ "abc",		-EINVAL },
	{ "",			-EINVAL },
	{ "\n",			-EINVAL },
	{ "default",		-EINVAL },
	{ "default 0",		-EINVAL },
	{ "8:16",		-EINVAL },
	{ "8:16 100 junk",	-EINVAL },
	{ "8:16 0",		-EINVAL },
	{ "8: 100",		-EINVAL },
	{ ":16 100",		-EINVAL },
	{ "8:16:1 100",		-EINVAL },
	{ "4096:0 100",		-EINVAL },
	{ "8:1048576 100",	-EINVAL },
	{ "100\n200",		-EINVAL },
	{ "default 100\n8:16 200", -EINVAL },
	{ "99999999999",	-EINVAL },
	{ "0x64",		-EINVAL },
};

static void cfq_weight_desc(const struct cfq_weight_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->input);
}

KUNIT_ARRAY_PARAM(cfq_weight, cfq_weight_cases, cfq_weight_desc);

static void cfq_test_parse_weight(struct kunit *test)
{
	const struct cfq_weight_case *c = test->param_value;
	struct cfq_weight_req req = {};
	char *buf = kunit_kstrdup(test, c->input, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, cfq_parse_weight(buf, &req), c->ret);
	if (c->ret)
		return;
	KUNIT_EXPECT_EQ(test, req.op, c->op);
	KUNIT_EXPECT_EQ(test, req.weight, c->weight);
	if (c->op != CFQ_WEIGHT_SET_DEFAULT) {
		KUNIT_EXPECT_EQ(test, req.major, c->major);
		KUNIT_EXPECT_EQ(test, req.minor, c->minor);
	}
}

/*
 * cfq.ioprio p writes the weight 25 * (8 - p) and reads back p; any other
 * weight reads as the priority of the nearest such weight.
 */
static void cfq_test_ioprio_weight(struct kunit *test)
{
	unsigned int p;

	KUNIT_EXPECT_EQ(test, cfq_ioprio_to_cgroup_weight(0), 200U);
	KUNIT_EXPECT_EQ(test, cfq_ioprio_to_cgroup_weight(4), 100U);
	KUNIT_EXPECT_EQ(test, cfq_ioprio_to_cgroup_weight(7), 25U);
	for (p = 0; p < IOPRIO_NR_LEVELS; p++) {
		unsigned int w = cfq_ioprio_to_cgroup_weight(p);

		KUNIT_EXPECT_EQ(test, cfq_cgroup_weight_to_ioprio(w), p);
	}
	KUNIT_EXPECT_EQ(test, cfq_cgroup_weight_to_ioprio(1), 7U);
	KUNIT_EXPECT_EQ(test, cfq_cgroup_weight_to_ioprio(110), 4U);
	KUNIT_EXPECT_EQ(test, cfq_cgroup_weight_to_ioprio(113), 3U);
	KUNIT_EXPECT_EQ(test, cfq_cgroup_weight_to_ioprio(800), 0U);
	KUNIT_EXPECT_EQ(test, cfq_cgroup_weight_to_ioprio(10000), 0U);
}

static struct kunit_case cfq_cgroup_cases[] = {
	KUNIT_CASE_PARAM(cfq_test_parse_ioprio, cfq_parse_gen_params),
	KUNIT_CASE_PARAM(cfq_test_parse_weight, cfq_weight_gen_params),
	KUNIT_CASE(cfq_test_ioprio_weight),
	{}
};

static struct kunit_suite cfq_cgroup_suite = {
	.name = "cfq-cgroup",
	.test_cases = cfq_cgroup_cases,
};

kunit_test_suite(cfq_cgroup_suite);
