// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the cfq cgroup subsystem's input parsing.  Included at
 * the end of block/cfq-cgroup.c.
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

static struct kunit_case cfq_cgroup_cases[] = {
	KUNIT_CASE_PARAM(cfq_test_parse_ioprio, cfq_parse_gen_params),
	{}
};

static struct kunit_suite cfq_cgroup_suite = {
	.name = "cfq-cgroup",
	.test_cases = cfq_cgroup_cases,
};

kunit_test_suite(cfq_cgroup_suite);
