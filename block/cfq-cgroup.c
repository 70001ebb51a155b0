// SPDX-License-Identifier: GPL-2.0
/*
 * The cfq cgroup subsystem: a group priority per cgroup for the two-layer
 * CFQ elevator.
 *
 *	mount -t cgroup -o cfq none /dev/cgroup
 *	mkdir /dev/cgroup/test1
 *	echo $PID > /dev/cgroup/test1/tasks
 *	echo 2 > /dev/cgroup/test1/cfq.ioprio	# 0 (highest) .. 7, default 4
 *
 * The subsystem only stores the priority.  The elevator asks for it through
 * the adapter at the end of this file.  The subsystem calls into the
 * elevator at one point only: when a cgroup is removed (css_offline), so
 * that every cfq device lets go of its state for the group
 * (cfq_sched_cgroup_offline()); that is why the subsystem needs the
 * elevator built in.  Groups are flat for now: a child's priority does not
 * depend on its parent's.
 */
#include <linux/cfq-iosched.h>
#include <linux/cgroup.h>
#include <linux/kernfs.h>
#include <linux/kstrtox.h>
#include <linux/slab.h>

struct cfq_cgroup {
	struct cgroup_subsys_state	css;
	unsigned int			ioprio;	/* READ_ONCE/WRITE_ONCE */
};

/* The root group's state: allocated at boot, never freed. */
static struct cfq_cgroup *cfq_root_cgroup;

static struct cfq_cgroup *css_cfqcg(struct cgroup_subsys_state *css)
{
	return container_of(css, struct cfq_cgroup, css);
}

static struct cgroup_subsys_state *
cfq_css_alloc(struct cgroup_subsys_state *parent)
{
	struct cfq_cgroup *cfqcg = kzalloc(sizeof(*cfqcg), GFP_KERNEL);

	if (!cfqcg)
		return ERR_PTR(-ENOMEM);
	cfqcg->ioprio = CFQ_GROUP_IOPRIO_DEFAULT;
	if (!parent)
		cfq_root_cgroup = cfqcg;
	return &cfqcg->css;
}

/* rmdir: the devices let go of the group (and its css reference). */
static void cfq_css_offline(struct cgroup_subsys_state *css)
{
	cfq_sched_cgroup_offline(css);
}

static void cfq_css_free(struct cgroup_subsys_state *css)
{
	kfree(css_cfqcg(css));
}

/*
 * A group priority: decimal 0..7, as kstrtouint() reads it (an optional
 * '+' and trailing newline).  Anything else, including padding and
 * overflow, is -EINVAL.
 */
static int cfq_parse_ioprio(const char *buf, unsigned int *ioprio)
{
	unsigned int val;

	if (kstrtouint(buf, 10, &val) || val >= IOPRIO_NR_LEVELS)
		return -EINVAL;
	*ioprio = val;
	return 0;
}

static u64 cfq_ioprio_read(struct cgroup_subsys_state *css,
			   struct cftype *cft)
{
	return READ_ONCE(css_cfqcg(css)->ioprio);
}

static ssize_t cfq_ioprio_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	unsigned int ioprio;
	int ret;

	ret = cfq_parse_ioprio(buf, &ioprio);
	if (ret)
		return ret;
	WRITE_ONCE(css_cfqcg(of_css(of))->ioprio, ioprio);
	return nbytes;
}

static struct cftype cfq_files[] = {
	{
		.name = "ioprio",
		.read_u64 = cfq_ioprio_read,
		.write = cfq_ioprio_write,
	},
	{ }	/* terminate */
};

/*
 * Legacy (v1) hierarchies only for now: without dfl_cftypes the controller
 * cannot be enabled on the unified hierarchy, where its semantics
 * (hierarchical shares, writeback) are not implemented yet.
 */
struct cgroup_subsys cfq_cgrp_subsys = {
	.css_alloc	= cfq_css_alloc,
	.css_offline	= cfq_css_offline,
	.css_free	= cfq_css_free,
	.legacy_cftypes	= cfq_files,
};

/* ---------------------------------------------------------------------
 * Adapter for the elevator (declared in include/linux/cfq-iosched.h, where
 * the parts it calls for every request are inline).
 */

unsigned int cfq_cgroup_ioprio(struct cgroup_subsys_state *css)
{
	struct cfq_cgroup *cfqcg = css ? css_cfqcg(css) : cfq_root_cgroup;

	return READ_ONCE(cfqcg->ioprio);
}

unsigned int cfq_cgroup_current_ioprio(void)
{
	unsigned int ioprio;

	rcu_read_lock();
	ioprio = READ_ONCE(css_cfqcg(task_css(current, cfq_cgrp_id))->ioprio);
	rcu_read_unlock();
	return ioprio;
}

void cfq_cgroup_name(struct cgroup_subsys_state *css, char *buf, size_t len)
{
	if (css)
		cgroup_name(css->cgroup, buf, len);
	else
		strscpy(buf, "/", len);
}

#ifdef CONFIG_CFQ_KUNIT_TEST
#include "cfq-cgroup-test.c"
#endif
