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
 * The minimum, cmd->min_vdisktime, is the virtual time of the device: the
 * smallest key among the served group and the groups waiting for a turn.
 * It is monotonic, and it moves every time a group is charged, not only
 * when turns change hands: a group that has the device to itself renews
 * its turn in place, and the minimum must follow it, or a group arriving
 * later would be placed where the lone group was when its run began and
 * be owed everything it got alone (it would then have the device to
 * itself for as long).  Groups whose only work is of the IDLE class wait
 * on a tree of their own (cmd->idle_tree): they run only when no other
 * work is left, so they neither hold the minimum back nor count as
 * waiting for the device.
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

/* All of the group's queued work is of the IDLE class. */
static bool cfq_group_idle_only(const struct cfq_data *cfqd)
{
	return !cfqd->busy[CFQ_CLASS_RT] && !cfqd->busy[CFQ_CLASS_BE];
}

/* The tree a busy group waits on, by the classes it has work in. */
static struct rb_root_cached *cfq_gst_tree(struct cfq_meta_data *cmd,
					   const struct cfq_data *cfqd)
{
	return cfq_group_idle_only(cfqd) ? &cmd->idle_tree : &cmd->group_tree;
}

/* A group became busy: queue it, no earlier than the current minimum. */
static void cfq_gst_add(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (WARN_ON_ONCE(cfqd->tree))
		return;
	if (cfq_vtime_before(cfqd->vdisktime, cmd->min_vdisktime))
		cfqd->vdisktime = cmd->min_vdisktime;
	cfqd->tree = cfq_gst_tree(cmd, cfqd);
	rb_add_cached(&cfqd->rb_node, cfqd->tree, cfq_gst_less);
}

static void cfq_gst_del(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (!cfqd->tree)
		return;
	rb_erase_cached(&cfqd->rb_node, cfqd->tree);
	RB_CLEAR_NODE(&cfqd->rb_node);
	cfqd->tree = NULL;
}

/*
 * The classes a waiting group has work in changed (cfq_queue_busy()):
 * move it to the other tree if it now belongs there.  Joining the group
 * tree is becoming busy for the groups there: no earlier than the minimum.
 */
static void cfq_gst_requeue(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (!cfqd->tree || cfqd->tree == cfq_gst_tree(cmd, cfqd))
		return;
	cfq_gst_del(cmd, cfqd);
	cfq_gst_add(cmd, cfqd);
}

static struct cfq_data *cfq_gst_first_of(struct rb_root_cached *tree)
{
	struct rb_node *n = rb_first_cached(tree);

	return n ? rb_entry(n, struct cfq_data, rb_node) : NULL;
}

/* The first group waiting with RT or BE work. */
static struct cfq_data *cfq_gst_first(struct cfq_meta_data *cmd)
{
	lockdep_assert_held(&cmd->lock);

	return cfq_gst_first_of(&cmd->group_tree);
}

static struct cfq_data *cfq_gst_next(struct cfq_data *cfqd)
{
	struct rb_node *n = rb_next(&cfqd->rb_node);

	return n ? rb_entry(n, struct cfq_data, rb_node) : NULL;
}

/*
 * Raise the minimum to the smallest key among the served group and the
 * groups waiting with RT or BE work; never lower it.
 */
static void cfq_gst_update_min(struct cfq_meta_data *cmd)
{
	struct cfq_data *first = cfq_gst_first(cmd);
	u64 min;

	lockdep_assert_held(&cmd->lock);

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

/*
 * Charge @service to @cfqd; keep its tree ordered if it waits on one, and
 * the minimum current (see the top of this file).
 */
static void cfq_gst_charge(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 service, unsigned int weight)
{
	lockdep_assert_held(&cmd->lock);

	cfqd->service += service;
	cfqd->vdisktime += cfq_vtime_charge(service, weight);
	if (cfqd->tree) {
		struct cfq_data *next = cfq_gst_next(cfqd);

		/* The key only grows: re-sort only if it passed the next. */
		if (next && cfq_vtime_before(next->vdisktime, cfqd->vdisktime)) {
			rb_erase_cached(&cfqd->rb_node, cfqd->tree);
			rb_add_cached(&cfqd->rb_node, cfqd->tree, cfq_gst_less);
		}
	}
	cfq_gst_update_min(cmd);
}

/* ---------------------------------------------------------------------
 * Groups and queues: lookup, lifetime
 */

static unsigned int cfq_group_weight(struct cfq_data *cfqd)
{
	return cfqd->weight;
}

/*
 * Count @cfqd among the busy groups (@d = 1) or stop counting it (-1).
 * The heaviest and lightest busy groups' weights, for cfq_limit_depth()
 * (0 when none is busy), follow from the mask of weights present.
 */
static void cfq_group_count_busy(struct cfq_meta_data *cmd,
				 struct cfq_data *cfqd, int d)
{
	unsigned int w = cfq_group_weight(cfqd);
	unsigned int *n = &cmd->busy_weight[w];

	lockdep_assert_held(&cmd->lock);

	cmd->nr_busy_groups += d;
	*n += d;
	if (*n != (d > 0 ? 1 : 0))	/* the weights present did not change */
		return;
	cmd->busy_weight_mask ^= BIT(w);
	if (!cmd->busy_weight_mask) {
		WRITE_ONCE(cmd->max_weight, 0);
		WRITE_ONCE(cmd->min_weight, 0);
		return;
	}
	WRITE_ONCE(cmd->max_weight, fls(cmd->busy_weight_mask) - 1);
	WRITE_ONCE(cmd->min_weight, ffs(cmd->busy_weight_mask) - 1);
}

/* Read the group's cfq.ioprio: at creation and when its turn starts. */
static void cfq_group_read_weight(struct cfq_meta_data *cmd,
				  struct cfq_data *cfqd)
{
	unsigned int weight = cfq_ioprio_to_weight(cfq_cgroup_ioprio(cfqd->css));

	lockdep_assert_held(&cmd->lock);

	if (weight == cfqd->weight)
		return;
	if (cfqd->nr_queued)
		cfq_group_count_busy(cmd, cfqd, -1);
	cfqd->weight = weight;
	if (cfqd->nr_queued)
		cfq_group_count_busy(cmd, cfqd, 1);
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
	cfq_group_read_weight(cmd, cfqd);
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
	lockdep_assert_held(&cmd->lock);

	if (cmd->active != cfqd)
		cfq_gst_add(cmd, cfqd);
	cfq_group_count_busy(cmd, cfqd, 1);
}

/* @cfqd's last queued request left for the driver (or was merged away). */
static void cfq_group_unbusy(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	cfq_gst_del(cmd, cfqd);
	cfq_group_count_busy(cmd, cfqd, -1);
}

static void cfq_group_put(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (!refcount_dec_and_test(&cfqd->ref))
		return;
	if (WARN_ON_ONCE(cfqd == &cmd->root))
		return;
	WARN_ON_ONCE(cfqd->tree || cfqd->nr_queued || cfqd->in_driver ||
		     cmd->active == cfqd || !list_empty(&cfqd->queues));
	cfq_cgroup_put(cfqd->css);
	kfree(cfqd);
}

/*
 * The group of @css on this device, found by the cgroup's id in O(1);
 * created on first use, except for a cgroup being removed: its
 * offline has run or is running, so nothing would reap a group made now,
 * and its requests go to the root group instead.  Without memory, the
 * root group too.
 */
static struct cfq_data *cfq_group_lookup(struct cfq_meta_data *cmd,
					 struct cgroup_subsys_state *css,
					 bool create)
{
	struct cfq_data *cfqd;

	lockdep_assert_held(&cmd->lock);

	if (!css || cfq_cgroup_is_root(css))
		return &cmd->root;
	cfqd = xa_load(&cmd->group_xa, cfq_cgroup_id(css));
	if (cfqd || !create)
		return cfqd;
	if (cfq_cgroup_is_dying(css))
		return &cmd->root;
	cfqd = kzalloc_node(sizeof(*cfqd), GFP_NOWAIT, cmd->queue->node);
	if (!cfqd)
		return &cmd->root;
	if (xa_is_err(xa_store(&cmd->group_xa, cfq_cgroup_id(css), cfqd,
			       GFP_NOWAIT))) {
		kfree(cfqd);
		return &cmd->root;
	}
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
	cfq_group_read_weight(cmd, cfqd);
	cfqd->turn_start = now;
	cfqd->turns++;
	cfq_gst_update_min(cmd);
	cfq_log_cfqd(cmd, cfqd, "turn start, vdisktime %llu weight %u",
		     cfqd->vdisktime, cfq_group_weight(cfqd));
}

/*
 * Let go of @cfqd if its cgroup is gone and it has nothing left to do
 * here.  It may be freed: the caller must not use it afterwards.
 */
static void cfq_group_try_reap(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd)
{
	lockdep_assert_held(&cmd->lock);

	if (cfqd == &cmd->root || !cfqd->linked || cmd->active == cfqd ||
	    cfqd->nr_queued || cfqd->in_driver ||
	    !cfq_cgroup_is_dying(cfqd->css))
		return;
	cfq_log_cfqd(cmd, cfqd, "group reaped");
	cfq_group_unlink(cmd, cfqd);
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
	cfq_log_cfqd(cmd, cfqd, "turn end, vdisktime %llu, %u queued",
		     cfqd->vdisktime, cfqd->nr_queued);
	cfq_group_try_reap(cmd, cfqd);
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
		cfq_group_try_reap(cmd, cfqd);
}

/*
 * The group to serve next: the first with RT or BE work, else, once the
 * device has been idle long enough for the IDLE class, the first of those
 * with only IDLE-class work.
 */
static struct cfq_data *cfq_group_pick(struct cfq_meta_data *cmd, u64 now)
{
	struct cfq_data *cfqd = cfq_gst_first(cmd);

	if (cfqd || !cfq_idle_class_allowed(cmd, now))
		return cfqd;
	return cfq_gst_first_of(&cmd->idle_tree);
}

/* Is another group waiting for the device with RT or BE work? */
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
	return cmd->nr_busy_groups ==
	       cmd->busy_weight[cfq_group_weight(cfqd)];
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
	xa_erase(&cmd->group_xa, cfq_cgroup_id(cfqd->css));
	list_del(&cfqd->node);
	cfqd->linked = false;
	cmd->nr_groups--;
	cfq_group_put(cmd, cfqd);
}

#ifdef CONFIG_CFQ_KUNIT_TEST
#include "cfq-group-test.c"
#endif
