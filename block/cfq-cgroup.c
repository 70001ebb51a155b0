// SPDX-License-Identifier: GPL-2.0
/*
 * The cfq cgroup subsystem: group weights for the two-layer CFQ elevator,
 * on the legacy (v1) and the unified (v2) hierarchy.
 *
 *	v2:	echo +cfq > /sys/fs/cgroup/cgroup.subtree_control
 *		echo 200 > /sys/fs/cgroup/db/cfq.weight
 *	v1:	mount -t cgroup -o cfq none /dev/cgroup
 *		echo 2 > /dev/cgroup/test1/cfq.ioprio
 *
 * Files, on every cgroup of either hierarchy:
 *   cfq.weight  "default W" and "MAJ:MIN W" lines, W in 1..10000, default
 *		 100, as io.weight: a bare number or "default W" sets the
 *		 default, "MAJ:MIN W" a device's weight, "MAJ:MIN default"
 *		 drops it.
 *   cfq.ioprio  the 2008 RFC's group priority p, 0..7: writing it sets the
 *		 default weight to 25 * (8 - p) (0, 4, 7 -> 200, 100, 25).
 *		 The default weight is the one source of truth: cfq.ioprio
 *		 reads the priority whose weight is nearest to it.
 *   cfq.stat	 per device the group and its descendants used: bytes and
 *		 I/Os read and written, device time received, time spent
 *		 waiting for a turn, time the device was kept idle for them.
 *
 * The subsystem stores weights and statistics; the elevator asks for them
 * through the adapter at the end of this file and keeps the statistics up
 * to date.  It calls into the elevator at one point only: when a cgroup is
 * removed (css_offline), so that every cfq device lets go of its state for
 * the group (cfq_sched_cgroup_offline()); that is why the subsystem needs
 * the elevator built in.
 *
 * Locking: the default weight is a single word (READ_ONCE/WRITE_ONCE).
 * The per-device weights and statistics are RCU lists: cfq_cgroup_lock
 * (IRQ-safe: the elevator adds statistics under its own IRQ-safe lock)
 * serializes writers; an entry is freed after a grace period (a weight)
 * or with the cgroup (statistics, which the elevator's groups use while
 * they hold the css).  Every weight change then moves cfq_weight_seq,
 * which tells each device to read its groups' weights again.
 */
#include <linux/atomic.h>
#include <linux/blkdev.h>
#include <linux/blk-cgroup.h>
#include <linux/cfq-iosched.h>
#include <linux/cgroup.h>
#include <linux/kernfs.h>
#include <linux/kstrtox.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

/* A device's weight for a group (cfq.weight "MAJ:MIN W"). */
struct cfq_dev_weight {
	struct list_head	node;		/* cfq_cgroup.dev_weights */
	dev_t			dev;
	unsigned int		weight;
	struct rcu_head		rcu;
};

struct cfq_cgroup {
	struct cgroup_subsys_state	css;
	unsigned int			weight;	/* default; READ_ONCE */
	struct list_head		dev_weights;	/* RCU */
	struct list_head		stats;		/* RCU, append only */
};

static DEFINE_SPINLOCK(cfq_cgroup_lock);

/* The root group's state: allocated at boot, never freed. */
static struct cfq_cgroup *cfq_root_cgroup;

/*
 * Counts weight changes (cfq.weight, cfq.ioprio): a device that sees it
 * move reads every group's weight again (cfq_cgroup_weight_seq()).
 */
atomic_t cfq_weight_seq = ATOMIC_INIT(0);

/* After a weight is stored: the count orders it before itself. */
static void cfq_weight_changed(void)
{
	atomic_inc_return_release(&cfq_weight_seq);
}

static struct cfq_cgroup *css_cfqcg(struct cgroup_subsys_state *css)
{
	return container_of(css, struct cfq_cgroup, css);
}

/* The group of @css; NULL means the root group, as the elevator says. */
static struct cfq_cgroup *cfqcg_of(struct cgroup_subsys_state *css)
{
	return css ? css_cfqcg(css) : cfq_root_cgroup;
}

/* ---------------------------------------------------------------------
 * Pure rules (KUnit: cfq-cgroup-test.c)
 */

/* cfq.ioprio p -> default weight 25 * (8 - p): 0 -> 200, 4 -> 100, 7 -> 25. */
static unsigned int cfq_ioprio_to_cgroup_weight(unsigned int ioprio)
{
	return CFQ_WEIGHT_PER_IOPRIO * (IOPRIO_NR_LEVELS - ioprio);
}

/* The priority whose weight is nearest to @weight (ties: the higher). */
static unsigned int cfq_cgroup_weight_to_ioprio(unsigned int weight)
{
	unsigned int steps = DIV_ROUND_CLOSEST(weight, CFQ_WEIGHT_PER_IOPRIO);

	return IOPRIO_NR_LEVELS - clamp(steps, 1U, IOPRIO_NR_LEVELS);
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

/* What a write to cfq.weight asks for. */
enum cfq_weight_op {
	CFQ_WEIGHT_SET_DEFAULT,		/* "W" or "default W" */
	CFQ_WEIGHT_SET_DEV,		/* "MAJ:MIN W" */
	CFQ_WEIGHT_DROP_DEV,		/* "MAJ:MIN default" */
};

struct cfq_weight_req {
	enum cfq_weight_op	op;
	unsigned int		major;
	unsigned int		minor;
	unsigned int		weight;
};

static int cfq_parse_weight_value(const char *tok, unsigned int *weight)
{
	unsigned int val;

	if (kstrtouint(tok, 10, &val) || val < CFQ_WEIGHT_MIN ||
	    val > CFQ_WEIGHT_MAX)
		return -EINVAL;
	*weight = val;
	return 0;
}

static int cfq_parse_devno(char *tok, unsigned int *major,
			   unsigned int *minor)
{
	char *colon = strchr(tok, ':');

	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (kstrtouint(tok, 10, major) || kstrtouint(colon + 1, 10, minor) ||
	    *major >= (1U << (32 - MINORBITS)) || *minor > MINORMASK)
		return -EINVAL;
	return 0;
}

/*
 * Parse one cfq.weight line (in place): "W", "default W", "MAJ:MIN W" or
 * "MAJ:MIN default", fields separated by blanks, one trailing newline
 * allowed.  Anything else, including more lines, is -EINVAL.
 */
static int cfq_parse_weight(char *buf, struct cfq_weight_req *req)
{
	char *tok[3];
	int n = 0;
	char *s;

	s = strim(buf);
	if (strpbrk(s, "\n\r\v\f"))
		return -EINVAL;
	while (s && *s) {
		char *t = strsep(&s, " \t");

		if (!*t)
			continue;
		if (n == ARRAY_SIZE(tok))
			return -EINVAL;
		tok[n++] = t;
	}
	if (n == 1 && !strchr(tok[0], ':')) {
		req->op = CFQ_WEIGHT_SET_DEFAULT;
		return cfq_parse_weight_value(tok[0], &req->weight);
	}
	if (n != 2)
		return -EINVAL;
	if (!strcmp(tok[0], "default")) {
		req->op = CFQ_WEIGHT_SET_DEFAULT;
		return cfq_parse_weight_value(tok[1], &req->weight);
	}
	if (cfq_parse_devno(tok[0], &req->major, &req->minor))
		return -EINVAL;
	if (!strcmp(tok[1], "default")) {
		req->op = CFQ_WEIGHT_DROP_DEV;
		return 0;
	}
	req->op = CFQ_WEIGHT_SET_DEV;
	return cfq_parse_weight_value(tok[1], &req->weight);
}

/* ---------------------------------------------------------------------
 * The subsystem
 */

static struct cgroup_subsys_state *
cfq_css_alloc(struct cgroup_subsys_state *parent)
{
	struct cfq_cgroup *cfqcg = kzalloc(sizeof(*cfqcg), GFP_KERNEL);

	if (!cfqcg)
		return ERR_PTR(-ENOMEM);
	cfqcg->weight = CFQ_WEIGHT_DEFAULT;
	INIT_LIST_HEAD(&cfqcg->dev_weights);
	INIT_LIST_HEAD(&cfqcg->stats);
	if (!parent)
		cfq_root_cgroup = cfqcg;
	return &cfqcg->css;
}

/* rmdir: the devices let go of the group (and its css reference). */
static void cfq_css_offline(struct cgroup_subsys_state *css)
{
	cfq_sched_cgroup_offline(css);
}

/* No elevator holds the css any more, and every reader is gone. */
static void cfq_css_free(struct cgroup_subsys_state *css)
{
	struct cfq_cgroup *cfqcg = css_cfqcg(css);
	struct cfq_dev_weight *dw, *dwn;
	struct cfq_stat *st, *stn;

	list_for_each_entry_safe(dw, dwn, &cfqcg->dev_weights, node)
		kfree(dw);
	list_for_each_entry_safe(st, stn, &cfqcg->stats, node)
		kfree(st);
	kfree(cfqcg);
}

static u64 cfq_ioprio_read(struct cgroup_subsys_state *css,
			   struct cftype *cft)
{
	return cfq_cgroup_weight_to_ioprio(READ_ONCE(css_cfqcg(css)->weight));
}

static ssize_t cfq_ioprio_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	unsigned int ioprio;
	int ret;

	ret = cfq_parse_ioprio(buf, &ioprio);
	if (ret)
		return ret;
	WRITE_ONCE(css_cfqcg(of_css(of))->weight,
		   cfq_ioprio_to_cgroup_weight(ioprio));
	cfq_weight_changed();
	return nbytes;
}

static int cfq_weight_show(struct seq_file *sf, void *v)
{
	struct cfq_cgroup *cfqcg = css_cfqcg(seq_css(sf));
	struct cfq_dev_weight *dw;

	seq_printf(sf, "default %u\n", READ_ONCE(cfqcg->weight));
	rcu_read_lock();
	list_for_each_entry_rcu(dw, &cfqcg->dev_weights, node)
		seq_printf(sf, "%u:%u %u\n", MAJOR(dw->dev), MINOR(dw->dev),
			   dw->weight);
	rcu_read_unlock();
	return 0;
}

static struct cfq_dev_weight *cfq_dev_weight_find(struct cfq_cgroup *cfqcg,
						  dev_t dev)
{
	struct cfq_dev_weight *dw;

	list_for_each_entry_rcu(dw, &cfqcg->dev_weights, node,
				lockdep_is_held(&cfq_cgroup_lock))
		if (dw->dev == dev)
			return dw;
	return NULL;
}

/* A whole disk of that number exists (as io.weight requires). */
static int cfq_disk_exists(dev_t dev)
{
	struct block_device *bdev = blkdev_get_no_open(dev);
	int ret = 0;

	if (!bdev)
		return -ENODEV;
	if (bdev_is_partition(bdev) || !disk_live(bdev->bd_disk))
		ret = -ENODEV;
	blkdev_put_no_open(bdev);
	return ret;
}

static int cfq_set_dev_weight(struct cfq_cgroup *cfqcg,
			      const struct cfq_weight_req *req)
{
	dev_t dev = MKDEV(req->major, req->minor);
	struct cfq_dev_weight *dw, *new = NULL;
	int ret;

	ret = cfq_disk_exists(dev);
	if (ret)
		return ret;
	if (req->op == CFQ_WEIGHT_SET_DEV) {
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		new->dev = dev;
		new->weight = req->weight;
	}
	spin_lock_irq(&cfq_cgroup_lock);
	dw = cfq_dev_weight_find(cfqcg, dev);
	if (new && dw)
		list_replace_rcu(&dw->node, &new->node);
	else if (new)
		list_add_tail_rcu(&new->node, &cfqcg->dev_weights);
	else if (dw)
		list_del_rcu(&dw->node);
	spin_unlock_irq(&cfq_cgroup_lock);
	cfq_weight_changed();
	if (dw)
		kfree_rcu(dw, rcu);
	return 0;
}

static ssize_t cfq_weight_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct cfq_cgroup *cfqcg = css_cfqcg(of_css(of));
	struct cfq_weight_req req;
	int ret;

	ret = cfq_parse_weight(buf, &req);
	if (ret)
		return ret;
	if (req.op == CFQ_WEIGHT_SET_DEFAULT) {
		WRITE_ONCE(cfqcg->weight, req.weight);
		cfq_weight_changed();
		return nbytes;
	}
	ret = cfq_set_dev_weight(cfqcg, &req);
	return ret ?: nbytes;
}

/* One device's statistics, summed over a group and its descendants. */
struct cfq_stat_sum {
	dev_t			dev;
	struct cfq_stat		sum;
};

static void cfq_stat_add(struct cfq_stat *to, const struct cfq_stat *st)
{
	int d;

	for (d = 0; d < CFQ_NR_DIRS; d++) {
		to->bytes[d] += READ_ONCE(st->bytes[d]);
		to->ios[d] += READ_ONCE(st->ios[d]);
	}
	to->service_ns += READ_ONCE(st->service_ns);
	to->wait_ns += READ_ONCE(st->wait_ns);
	to->idle_ns += READ_ONCE(st->idle_ns);
}

/*
 * Sum the statistics of @css's subtree per device into @sums (room for
 * @max devices); returns how many devices were seen, which may be more.
 */
static int cfq_stat_collect(struct cgroup_subsys_state *css,
			    struct cfq_stat_sum *sums, int max)
{
	struct cgroup_subsys_state *pos;
	struct cfq_stat *st;
	int n = 0, i;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, css) {
		list_for_each_entry_rcu(st, &css_cfqcg(pos)->stats, node) {
			for (i = 0; i < min(n, max); i++)
				if (sums[i].dev == st->dev)
					break;
			if (i == n) {
				n++;
				if (i >= max)
					continue;
				sums[i].dev = st->dev;
			}
			if (i < max)
				cfq_stat_add(&sums[i].sum, st);
		}
	}
	rcu_read_unlock();
	return n;
}

static int cfq_stat_show(struct seq_file *sf, void *v)
{
	struct cgroup_subsys_state *css = seq_css(sf);
	struct cfq_stat_sum *sums = NULL;
	int max = 0, n, i;

	/* Count the devices first, then sum into room for all of them. */
	for (;;) {
		n = cfq_stat_collect(css, sums, max);
		if (n <= max)
			break;
		kfree(sums);
		max = n + 4;
		sums = kcalloc(max, sizeof(*sums), GFP_KERNEL);
		if (!sums)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct cfq_stat *s = &sums[i].sum;

		seq_printf(sf, "%u:%u rbytes=%llu wbytes=%llu rios=%llu wios=%llu service_us=%llu wait_us=%llu idle_us=%llu\n",
			   MAJOR(sums[i].dev), MINOR(sums[i].dev),
			   s->bytes[CFQ_READ], s->bytes[CFQ_WRITE],
			   s->ios[CFQ_READ], s->ios[CFQ_WRITE],
			   div_u64(s->service_ns, NSEC_PER_USEC),
			   div_u64(s->wait_ns, NSEC_PER_USEC),
			   div_u64(s->idle_ns, NSEC_PER_USEC));
	}
	kfree(sums);
	return 0;
}

/* The same files on both hierarchies, root included. */
static struct cftype cfq_files[] = {
	{
		.name = "weight",
		.seq_show = cfq_weight_show,
		.write = cfq_weight_write,
	},
	{
		.name = "ioprio",
		.read_u64 = cfq_ioprio_read,
		.write = cfq_ioprio_write,
	},
	{
		.name = "stat",
		.seq_show = cfq_stat_show,
	},
	{ }	/* terminate */
};

struct cgroup_subsys cfq_cgrp_subsys = {
	.css_alloc	= cfq_css_alloc,
	.css_offline	= cfq_css_offline,
	.css_free	= cfq_css_free,
	.legacy_cftypes	= cfq_files,
	.dfl_cftypes	= cfq_files,
};

/* ---------------------------------------------------------------------
 * Adapter for the elevator (declared in include/linux/cfq-iosched.h, where
 * the parts it calls for every request are inline).
 */

unsigned int cfq_cgroup_weight(struct cgroup_subsys_state *css, dev_t dev)
{
	struct cfq_cgroup *cfqcg = cfqcg_of(css);
	struct cfq_dev_weight *dw;
	unsigned int weight;

	rcu_read_lock();
	dw = list_empty(&cfqcg->dev_weights) ? NULL :
	     cfq_dev_weight_find(cfqcg, dev);
	weight = dw ? dw->weight : READ_ONCE(cfqcg->weight);
	rcu_read_unlock();
	return weight;
}

/*
 * The statistics of @css on device @dev, made on first use (GFP_NOWAIT:
 * the elevator holds its lock); NULL without memory.  Valid while the
 * caller holds @css.
 */
struct cfq_stat *cfq_cgroup_stat(struct cgroup_subsys_state *css, dev_t dev)
{
	struct cfq_cgroup *cfqcg = cfqcg_of(css);
	struct cfq_stat *st, *new;
	unsigned long flags;

	rcu_read_lock();
	list_for_each_entry_rcu(st, &cfqcg->stats, node)
		if (st->dev == dev)
			goto out;
	rcu_read_unlock();
	new = kzalloc(sizeof(*new), GFP_NOWAIT);
	if (!new)
		return NULL;
	new->dev = dev;
	rcu_read_lock();
	spin_lock_irqsave(&cfq_cgroup_lock, flags);
	list_for_each_entry_rcu(st, &cfqcg->stats, node)
		if (st->dev == dev)
			break;
	if (list_entry_is_head(st, &cfqcg->stats, node)) {
		list_add_tail_rcu(&new->node, &cfqcg->stats);
		st = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&cfq_cgroup_lock, flags);
	kfree(new);
out:
	rcu_read_unlock();
	return st;
}

/*
 * The cgroup a bio's I/O belongs to, referenced; NULL for the root group.
 * On the unified hierarchy: the cgroup the block layer charges the bio to
 * (its blkcg association: the dirtier for writeback, the issuer for loop
 * and io_uring workers and device-mapper clones), as cfq sees it (the
 * nearest ancestor with cfq enabled); but if that is an ancestor of the
 * submitting task's cgroup (the io controller is not enabled down to the
 * task, so the association stops higher up), the task's own, which is
 * more precise.  On v1, and for a request without a bio, the submitting
 * task's group.
 */
struct cgroup_subsys_state *cfq_cgroup_get_bio(struct bio *bio)
{
	struct cgroup_subsys_state *css, *blkcg_css;
	struct cgroup *origin;

	if (!cgroup_subsys_on_dfl(cfq_cgrp_subsys) || !bio || !bio->bi_blkg)
		return cfq_cgroup_get_current();
	rcu_read_lock();
	blkcg_css = bio_blkcg_css(bio);
	origin = blkcg_css ? blkcg_css->cgroup : NULL;
	if (!origin || cgroup_is_descendant(task_dfl_cgroup(current), origin)) {
		rcu_read_unlock();
		return cfq_cgroup_get_current();
	}
	css = cgroup_e_css(origin, &cfq_cgrp_subsys);
	/* (A removed cgroup's group is looked up as its nearest ancestor's.) */
	if (!css->parent || !css_tryget(css))
		css = NULL;
	rcu_read_unlock();
	return css;
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
