// SPDX-License-Identifier: GPL-2.0
/*
 * cfq meta-data: the group service tree of the two-layer CFQ elevator.
 *
 * Busy groups (cfq_data with requests queued) wait on an rb-tree keyed by
 * virtual disk time; the group with the smallest key is served next.  The
 * group being served is off the tree (as the kernel's CFS keeps its
 * running entity off its tree): its requests come and go, often one at a
 * time, without touching the tree, and it goes back when its turn ends,
 * if it still has requests.
 * Service a group receives, in nanoseconds of device time or in I/Os (see
 * the service_mode tunable), advances its key by
 *
 *	charge = service * CFQ_GROUP_WEIGHT_DEFAULT / weight
 *
 * so over any interval in which groups stay busy, each one's service is
 * proportional to its weight: a group of weight 8 advances half as fast as
 * one of weight 4 for the same service and is picked twice as often.
 *
 * Ranges: service per charge is at most a few seconds (4e9 ns), the
 * multiplier at most CFQ_GROUP_WEIGHT_DEFAULT (4), so the product stays far
 * below 2^63.  Keys are compared wrap-safe, (s64)(a - b) < 0, which holds
 * while live keys are within 2^63 of each other: they are, because a group
 * that becomes busy starts no lower than cmd->min_vdisktime (no banked
 * credit) and the busy ones advance together.
 *
 * The minimum is monotonic: it follows the smallest key among the served
 * group and the tree, and never goes back.
 *
 * Not built on its own: cfq-iosched.c includes this file.
 */
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "cfq.h"

/*
 * Weight of a group priority, w = 8 - p: 0 -> 8 .. 7 -> 1.  With three
 * groups at 0/4/7 the shares are 8:4:1 = 61.5/30.8/7.7 %, the 2008 RFC's
 * own estimate.
 */
static const unsigned int cfq_ioprio_weight[IOPRIO_NR_LEVELS] = {
	8, 7, 6, 5, 4, 3, 2, 1,
};

static unsigned int cfq_ioprio_to_weight(unsigned int ioprio)
{
	if (WARN_ON_ONCE(ioprio >= IOPRIO_NR_LEVELS))
		ioprio = CFQ_GROUP_IOPRIO_DEFAULT;
	return cfq_ioprio_weight[ioprio];
}

static u64 cfq_vtime_charge(u64 service, unsigned int weight)
{
	return div_u64(service * CFQ_GROUP_WEIGHT_DEFAULT, max(weight, 1U));
}

/*
 * Scheduler tags a request may use (see cfq_limit_depth()): the group's
 * part by weight against the heaviest busy group (@max_weight, 0 when
 * none is busy), 3/4 of that for async requests and writes, at least 1.
 */
static unsigned int cfq_tag_share(unsigned int depth, unsigned int weight,
				  unsigned int max_weight, bool async)
{
	unsigned int share = depth;

	if (weight < max_weight)
		share = share * weight / max_weight;
	if (async)
		share = share * 3 / 4;
	return max(share, 1U);
}

static bool cfq_vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static bool cfq_gst_less(struct rb_node *a, const struct rb_node *b)
{
	const struct cfq_data *ga = rb_entry(a, struct cfq_data, rb_node);
	const struct cfq_data *gb = rb_entry(b, struct cfq_data, rb_node);

	return cfq_vtime_before(ga->vdisktime, gb->vdisktime);
}

/* A group became busy: queue it, no earlier than the current minimum. */
static void cfq_gst_add(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (WARN_ON_ONCE(cfqd->on_tree))
		return;
	if (cfq_vtime_before(cfqd->vdisktime, cmd->min_vdisktime))
		cfqd->vdisktime = cmd->min_vdisktime;
	rb_add_cached(&cfqd->rb_node, &cmd->group_tree, cfq_gst_less);
	cfqd->on_tree = true;
}

static void cfq_gst_del(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (!cfqd->on_tree)
		return;
	rb_erase_cached(&cfqd->rb_node, &cmd->group_tree);
	RB_CLEAR_NODE(&cfqd->rb_node);
	cfqd->on_tree = false;
}

static struct cfq_data *cfq_gst_first(struct cfq_meta_data *cmd)
{
	struct rb_node *n;

	lockdep_assert_held(&cmd->lock);

	n = rb_first_cached(&cmd->group_tree);
	return n ? rb_entry(n, struct cfq_data, rb_node) : NULL;
}

static struct cfq_data *cfq_gst_next(struct cfq_data *cfqd)
{
	struct rb_node *n = rb_next(&cfqd->rb_node);

	return n ? rb_entry(n, struct cfq_data, rb_node) : NULL;
}

/* Raise the minimum to the smallest key in service, never lower it. */
static void cfq_gst_update_min(struct cfq_meta_data *cmd)
{
	struct cfq_data *first = cfq_gst_first(cmd);
	u64 min;

	if (cmd->active)
		min = cmd->active->vdisktime;
	else if (first)
		min = first->vdisktime;
	else
		return;
	if (first && cfq_vtime_before(first->vdisktime, min))
		min = first->vdisktime;
	if (cfq_vtime_before(cmd->min_vdisktime, min))
		cmd->min_vdisktime = min;
}

/* Charge @service to @cfqd; keep the tree ordered if it is queued. */
static void cfq_gst_charge(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 service, unsigned int weight)
{
	lockdep_assert_held(&cmd->lock);

	cfqd->service += service;
	cfqd->vdisktime += cfq_vtime_charge(service, weight);
	if (cfqd->on_tree) {
		struct cfq_data *next = cfq_gst_next(cfqd);

		/* The key only grows: re-sort only if it passed the next. */
		if (next && cfq_vtime_before(next->vdisktime, cfqd->vdisktime)) {
			rb_erase_cached(&cfqd->rb_node, &cmd->group_tree);
			rb_add_cached(&cfqd->rb_node, &cmd->group_tree,
				      cfq_gst_less);
		}
	}
}

/* ---------------------------------------------------------------------
 * Groups and queues: lookup, lifetime
 */

static unsigned int cfq_group_weight(struct cfq_data *cfqd)
{
	return cfqd->weight;
}

/* Read the group's cfq.ioprio: at creation and when its turn starts. */
static void cfq_group_read_weight(struct cfq_data *cfqd)
{
	cfqd->weight = cfq_ioprio_to_weight(cfq_cgroup_ioprio(cfqd->css));
}

static void cfq_group_init(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   struct cgroup_subsys_state *css)
{
	int c;

	cfqd->cmd = cmd;
	refcount_set(&cfqd->ref, 1);
	cfqd->css = css;
	RB_CLEAR_NODE(&cfqd->rb_node);
	for (c = 0; c < CFQ_NR_CLASSES; c++)
		cfqd->service_tree[c] = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&cfqd->queues);
	cfqd->vdisktime = cmd->min_vdisktime;
	cfq_group_read_weight(cfqd);
	cfq_cgroup_name(css, cfqd->name, sizeof(cfqd->name));
	list_add_tail(&cfqd->node, &cmd->groups);
	cfqd->linked = true;
	cmd->nr_groups++;
}

static void cfq_group_get(struct cfq_data *cfqd)
{
	refcount_inc(&cfqd->ref);
}

/* @cfqd has its first request queued: it competes for the device. */
static void cfq_group_busy(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	unsigned int weight = cfq_group_weight(cfqd);

	lockdep_assert_held(&cmd->lock);

	if (cmd->active != cfqd)
		cfq_gst_add(cmd, cfqd);
	if (weight > cmd->max_weight)
		WRITE_ONCE(cmd->max_weight, weight);
	if (weight < cmd->min_weight || !cmd->min_weight)
		WRITE_ONCE(cmd->min_weight, weight);
}

/*
 * The heaviest and lightest busy groups' weights, for cfq_limit_depth();
 * 0 when none is busy.
 */
static void cfq_group_update_weights(struct cfq_meta_data *cmd)
{
	struct cfq_data *cfqd = cmd->active;
	unsigned int max = 0, min = 0, w;

	if (cfqd && cfqd->nr_queued) {	/* busy, but off the tree */
		max = cfq_group_weight(cfqd);
		min = max;
	}
	for (cfqd = cfq_gst_first(cmd); cfqd; cfqd = cfq_gst_next(cfqd)) {
		w = cfq_group_weight(cfqd);
		max = max(max, w);
		min = min ? min(min, w) : w;
	}
	WRITE_ONCE(cmd->max_weight, max);
	WRITE_ONCE(cmd->min_weight, min);
}

static void cfq_group_put(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (!refcount_dec_and_test(&cfqd->ref))
		return;
	if (WARN_ON_ONCE(cfqd == &cmd->root))
		return;
	WARN_ON_ONCE(cfqd->on_tree || cfqd->nr_queued || cfqd->in_driver ||
		     cmd->active == cfqd || !list_empty(&cfqd->queues));
	cfq_cgroup_put(cfqd->css);
	kfree(cfqd);
}

/* The group of @css on this device; created on first use. */
static struct cfq_data *cfq_group_lookup(struct cfq_meta_data *cmd,
					 struct cgroup_subsys_state *css,
					 bool create)
{
	struct cfq_data *cfqd;

	lockdep_assert_held(&cmd->lock);

	if (!css || cfq_cgroup_is_root(css))
		return &cmd->root;
	list_for_each_entry(cfqd, &cmd->groups, node)
		if (cfqd->css == css)
			return cfqd;
	if (!create)
		return NULL;
	cfqd = kzalloc_node(sizeof(*cfqd), GFP_NOWAIT, cmd->queue->node);
	if (!cfqd)
		return &cmd->root;	/* degrade to the root group */
	cfq_cgroup_get(css);
	cfq_group_init(cmd, cfqd, css);
	cfq_log_cfqd(cmd, cfqd, "group created");
	return cfqd;
}

static u64 cfq_group_clock(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 now)
{
	if (cmd->active != cfqd)
		return cfqd->clock;
	return cfqd->clock + (now - cfqd->turn_start);
}

static u64 cfq_turn_budget(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	u64 turn = div_u64(cfq_tun_ns(cmd, CFQ_GROUP_SLICE) *
			   cfq_group_weight(cfqd), CFQ_GROUP_WEIGHT_MAX);

	return max_t(u64, turn, CFQ_MIN_TURN_NS);
}

static void cfq_group_activate(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd, u64 now)
{
	lockdep_assert_held(&cmd->lock);

	cfq_gst_del(cmd, cfqd);
	cmd->active = cfqd;
	cfq_group_read_weight(cfqd);
	cfqd->turn_start = now;
	cfqd->turns++;
	cfq_gst_update_min(cmd);
	cfq_log_cfqd(cmd, cfqd, "turn start, vdisktime %llu weight %u",
		     cfqd->vdisktime, cfq_group_weight(cfqd));
}

/* Reap groups whose cgroup is gone and that have nothing left to do. */
static void cfq_group_reap(struct cfq_meta_data *cmd)
{
	struct cfq_data *cfqd, *tmp;

	lockdep_assert_held(&cmd->lock);

	list_for_each_entry_safe(cfqd, tmp, &cmd->groups, node) {
		if (cfqd == &cmd->root || cmd->active == cfqd ||
		    cfqd->nr_queued || cfqd->in_driver ||
		    !cfq_cgroup_is_dying(cfqd->css))
			continue;
		cfq_log_cfqd(cmd, cfqd, "group reaped");
		cfq_group_unlink(cmd, cfqd);
	}
}

/* End the active group's turn. */
static void cfq_group_expire(struct cfq_meta_data *cmd, u64 now)
{
	struct cfq_data *cfqd = cmd->active;

	lockdep_assert_held(&cmd->lock);

	if (!cfqd)
		return;
	cmd->events[CFQ_EV_GROUP_EXPIRE]++;
	cfq_idle_cancel(cmd);
	cfqd->clock += now - cfqd->turn_start;
	cmd->active = NULL;
	if (cfqd->nr_queued)
		cfq_gst_add(cmd, cfqd);
	cfq_gst_update_min(cmd);
	cfq_group_update_weights(cmd);
	cfq_log_cfqd(cmd, cfqd, "turn end, vdisktime %llu, %u queued",
		     cfqd->vdisktime, cfqd->nr_queued);
	cfq_group_reap(cmd);
}

/*
 * @cfqd has nothing queued and nothing in the driver.  If its cgroup is
 * gone, end its turn and let it go now, rather than at the next turn on
 * this device, which may not come while the device stays quiet.
 */
static void cfq_group_done(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 now)
{
	lockdep_assert_held(&cmd->lock);

	if (!cfq_cgroup_is_dying(cfqd->css))	/* the root's css is NULL */
		return;
	if (cmd->active == cfqd)
		cfq_group_expire(cmd, now);	/* reaps */
	else
		cfq_group_reap(cmd);
}

/* The first busy group that has work it may do now. */
static struct cfq_data *cfq_group_pick(struct cfq_meta_data *cmd, u64 now)
{
	bool idle_ok = cfq_idle_class_allowed(cmd, now);
	struct cfq_data *cfqd;

	for (cfqd = cfq_gst_first(cmd); cfqd; cfqd = cfq_gst_next(cfqd))
		if (idle_ok || cfqd->busy[CFQ_CLASS_RT] ||
		    cfqd->busy[CFQ_CLASS_BE])
			return cfqd;
	return NULL;
}

/* Is another group waiting for the device? */
static bool cfq_others_waiting(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd)
{
	struct cfq_data *first = cfq_gst_first(cmd);

	return first && (first != cfqd || cfq_gst_next(first));
}

/* Used its turn: yield if others wait, else start a new turn in place. */
static bool cfq_turn_over(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			  u64 now)
{
	if (now - cfqd->turn_start < cfq_turn_budget(cmd, cfqd))
		return false;
	if (cfq_others_waiting(cmd, cfqd))
		return true;
	cfqd->clock += now - cfqd->turn_start;
	cfqd->turn_start = now;
	cfqd->turns++;
	return false;
}

/* Does every other busy group have @cfqd's weight? */
static bool cfq_group_among_equals(struct cfq_meta_data *cmd,
				   struct cfq_data *cfqd)
{
	unsigned int weight = cfq_group_weight(cfqd);
	struct cfq_data *g;

	for (g = cfq_gst_first(cmd); g; g = cfq_gst_next(g))
		if (g != cfqd && cfq_group_weight(g) != weight)
			return false;
	return true;
}

static bool cfq_group_should_idle(struct cfq_meta_data *cmd,
				  struct cfq_data *cfqd)
{
	return cmd->tun[CFQ_GROUP_IDLE] && cfq_others_waiting(cmd, cfqd) &&
	       !cfq_tags_full(cmd) &&
	       !(cfq_equal_noidle(cmd) && cfq_group_among_equals(cmd, cfqd));
}

/* Release a group's queues and drop the group's existence reference. */
static void cfq_group_unlink(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq, *tmp;
	int c, l;

	lockdep_assert_held(&cmd->lock);

	if (cfqd->active_queue)
		cfq_slice_expired(cmd, cfqd, 0);
	for (c = 0; c < CFQ_CLASS_IDLE; c++)
		for (l = 0; l < IOPRIO_NR_LEVELS; l++)
			if (cfqd->async_queue[c][l]) {
				cfq_queue_put(cmd, cfqd->async_queue[c][l]);
				cfqd->async_queue[c][l] = NULL;
			}
	if (cfqd->async_idle_queue) {
		cfq_queue_put(cmd, cfqd->async_idle_queue);
		cfqd->async_idle_queue = NULL;
	}
	/* Sync queues still held by io_contexts of tasks that moved away. */
	list_for_each_entry_safe(cfqq, tmp, &cfqd->queues, group_node)
		if (cfqq->cic) {
			cfqq->cic->sync_cfqq = NULL;
			WRITE_ONCE(cfqq->cic->sync_queued, 0);
			cfqq->cic = NULL;
			cfq_queue_put(cmd, cfqq);
		}
	if (cfqd == &cmd->root)
		return;
	list_del(&cfqd->node);
	cfqd->linked = false;
	cmd->nr_groups--;
	cfq_group_put(cmd, cfqd);
}

#ifdef CONFIG_CFQ_KUNIT_TEST
#include "cfq-group-test.c"
#endif
