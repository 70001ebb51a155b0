// SPDX-License-Identifier: GPL-2.0
/*
 * cfq meta-data: the group hierarchy of the two-layer CFQ elevator.
 *
 * Every group (cfq_data, one per device x cgroup) is a level of the
 * hierarchy.  Its child groups and its own queues (the I/O of its tasks)
 * compete on its service tree (struct cfq_sched) as entities (struct
 * cfq_entity): each child by its `ent`, the group's own queues together by
 * its `self`, both with the group's weight on the device.  The root
 * group's tree is the top.  The 2008 RFC's flat case, groups under the
 * root, is two levels: the root's tree holds the groups and the root's own
 * queues, each group's tree its own queues alone.
 *
 * Busy entities (with requests queued below them) wait on their level's
 * tree, keyed by virtual disk time.  Picking walks down from the root, at
 * each level taking the entity with the smallest key, until it reaches a
 * group's own queues: that group is served for a turn (cmd->active), and
 * every entity on its path is off its tree, its level's `active`, as CFS
 * keeps its running entity off its tree; they go back when the turn ends,
 * if they are still busy.  The service a request receives, in nanoseconds
 * of device time or in I/Os (see the service_mode tunable), is charged at
 * every level of its group's path:
 *
 *	charge = service * CFQ_WEIGHT_DEFAULT / weight
 *
 * so over any interval in which the entities of a level stay busy, each
 * one receives service in proportion to its weight: a group's share of
 * its parent's service is its weight over its busy siblings' (its
 * parent's own queues counting as one sibling with the parent's weight),
 * at every level, as io.weight defines it.
 *
 * Ranges: service per charge is at most a few seconds (4e9 ns), the
 * multiplier at most CFQ_WEIGHT_DEFAULT (100), so the product stays far
 * below 2^63.  Keys are compared wrap-safe, (s64)(a - b) < 0, which holds
 * while live keys of a level are within 2^63 of each other: they are,
 * because an entity that becomes busy starts no lower than its level's
 * minimum (no banked credit) and the busy ones advance together.
 *
 * The minimum of a level, sched->min_vdisktime, is its virtual time: the
 * smallest key among its active entity and the entities waiting on its
 * tree.  It is monotonic, and it moves every time an entity of the level
 * is charged, not only when turns change hands: a group that has the
 * device to itself renews its turn in place, and the minimum must follow
 * it, or a group arriving later would be placed where the lone group was
 * when its run began and be owed everything it got alone.  Entities whose
 * only work is of the IDLE class wait on a tree of their own (idle_tree):
 * they run only when no other work is left, so they neither hold the
 * minimum back nor count as waiting for the device.
 *
 * Not built on its own: cfq-iosched.c includes this file.
 */
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "cfq.h"

/* A group of this weight gets turns of group_slice (the RFC's prio 0). */
#define CFQ_WEIGHT_TURN		(2 * CFQ_WEIGHT_DEFAULT)
/* Fixed point of a group's part of the scheduler tags (1 = all). */
#define CFQ_TAG_ONE		1024U

/*
 * The most credit an entity keeps across a gap it did not choose: a
 * group_slice of service for each request the device takes at once, and
 * for at least 8.  In I/O-count mode service is counted in requests, and
 * a deep device completes that many more in the same time.
 */
static u64 cfq_keep_ns(struct cfq_meta_data *cmd)
{
	return cfq_tun_ns(cmd, CFQ_GROUP_SLICE) *
	       max(READ_ONCE(cmd->keep_scale), 8U);
}

static u64 cfq_vtime_charge(u64 service, unsigned int weight)
{
	return div_u64(service * CFQ_WEIGHT_DEFAULT, max(weight, 1U));
}

static bool cfq_vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/*
 * A group's part of the scheduler tags, in CFQ_TAG_ONE units: at every
 * level of its path, its weight against the sum of the busy weights there
 * (@total, itself included); one level at a time.
 */
static unsigned int cfq_tag_frac(unsigned int frac, unsigned int weight,
				 u64 total)
{
	if (weight >= total)
		return frac;
	return div64_u64((u64)frac * weight, total);
}

/*
 * Tags the sync requests of a group with part @frac of @depth may hold at
 * once (see cfq_tag_gate()): rounded up, at least 1.
 */
static unsigned int cfq_tag_limit(unsigned int depth, unsigned int frac)
{
	return max(DIV_ROUND_UP(depth * frac, CFQ_TAG_ONE), 1U);
}

/* Tags async requests and writes may take: 3/4 of @depth, at least 1. */
static unsigned int cfq_async_depth(unsigned int depth)
{
	return max(depth * 3 / 4, 1U);
}

/* ---------------------------------------------------------------------
 * The service tree of one level
 */

static struct cfq_sched *cfq_entity_sched(const struct cfq_entity *e)
{
	return &e->in->sched;
}

/* An entity stands for its group's own queues, not for a child group. */
static bool cfq_entity_is_self(const struct cfq_entity *e)
{
	return e == &e->cfqd->self;
}

static bool cfq_st_less(struct rb_node *a, const struct rb_node *b)
{
	const struct cfq_entity *ea = rb_entry(a, struct cfq_entity, rb_node);
	const struct cfq_entity *eb = rb_entry(b, struct cfq_entity, rb_node);

	return cfq_vtime_before(ea->vdisktime, eb->vdisktime);
}

static struct cfq_entity *cfq_st_first(struct rb_root_cached *tree)
{
	struct rb_node *n = rb_first_cached(tree);

	return n ? rb_entry(n, struct cfq_entity, rb_node) : NULL;
}

static struct cfq_entity *cfq_st_next(struct cfq_entity *e)
{
	struct rb_node *n = rb_next(&e->rb_node);

	return n ? rb_entry(n, struct cfq_entity, rb_node) : NULL;
}

/*
 * The entity of @s to serve next.  A whole turn moves a group's key by the
 * same virtual time whatever its weight (group_slice / 2, see
 * cfq_turn_budget()), so groups that became busy together keep keys a
 * few milliseconds apart round after round, and which of two comes first
 * is left to the noise in what each turn was charged (a request more or
 * less).  When two such groups swap places, one is served twice in a row
 * and the other waits two rounds: seconds in which both shares are a turn
 * off.  So two keys closer than half of what either's last turn moved it
 * count as equal, and of equals the one served longest ago goes first:
 * the order of a round holds, and no entity gets ahead of its key by more
 * than half a turn of its own.  Entities whose turns are short (their
 * queues run dry at each request) are still served by key, near enough.
 */
static struct cfq_entity *cfq_st_pick(struct cfq_sched *s)
{
	struct cfq_entity *first = cfq_st_first(&s->tree), *best = first;
	struct cfq_entity *e;

	if (!first)
		return NULL;
	for (e = cfq_st_next(first); e; e = cfq_st_next(e)) {
		u64 tie = min(first->turn_vt, e->turn_vt) / 2;

		if (!cfq_vtime_before(e->vdisktime, first->vdisktime + tie))
			break;
		if (e->last_turn < best->last_turn)
			best = e;
	}
	return best;
}

/*
 * A busy entity waits for a turn: no earlier than its level's minimum,
 * unless it never really left (@keep).  That is an entity whose turn
 * ended while it stayed busy, or one whose group's queues ran dry for a
 * gap the group did not choose (see cfq_group_may_keep()).  On a device
 * that holds all of a group's requests at once, that gap opens at every
 * request.  Such an entity keeps its key, and with it the credit it had:
 * the key may be below the minimum, which never moves back; but by no
 * more than cfq_keep_ns() of service at its weight, so that no group
 * holds the device for long on credit from the past.  An entity
 * that had only IDLE-class work and gets RT or BE work joins at the
 * minimum: it was not competing.
 */
static void cfq_st_add(struct cfq_sched *s, struct cfq_entity *e, bool keep)
{
	u64 floor = s->min_vdisktime;

	if (WARN_ON_ONCE(e->tree))
		return;
	if (cfq_vtime_before(e->vdisktime, floor)) {
		if (keep)
			floor -= cfq_vtime_charge(cfq_keep_ns(e->in->cmd),
						  e->weight);
		if (cfq_vtime_before(e->vdisktime, floor))
			e->vdisktime = floor;
	}
	e->tree = e->rtbe ? &s->tree : &s->idle_tree;
	rb_add_cached(&e->rb_node, e->tree, cfq_st_less);
	if (e->rtbe)
		e->in->cmd->nr_waiting++;
}

static void cfq_st_del(struct cfq_entity *e)
{
	if (!e->tree)
		return;
	if (e->tree == &cfq_entity_sched(e)->tree)
		e->in->cmd->nr_waiting--;
	rb_erase_cached(&e->rb_node, e->tree);
	RB_CLEAR_NODE(&e->rb_node);
	e->tree = NULL;
}

/*
 * Raise the level's minimum to the smallest key among its active entity
 * and the entities waiting with RT or BE work; never lower it.
 */
static __always_inline void cfq_st_update_min(struct cfq_sched *s)
{
	struct cfq_entity *first = cfq_st_first(&s->tree);
	u64 min;

	if (s->active)
		min = s->active->vdisktime;
	else if (first)
		min = first->vdisktime;
	else
		return;
	if (first && cfq_vtime_before(first->vdisktime, min))
		min = first->vdisktime;
	if (cfq_vtime_before(s->min_vdisktime, min))
		s->min_vdisktime = min;
}

/*
 * Charge @service to @e at its level; keep the tree in order.  A @spare
 * request (see cfq_fill()) took a slot the served entity of the level
 * could not use: it moves @e's key no further than one such charge past
 * the served entity's, so that a group using the slots a thinking one
 * leaves gets ahead of it, but by no more than that.
 */
static __always_inline void cfq_entity_charge(struct cfq_entity *e,
					      u64 service, bool spare)
{
	struct cfq_sched *s = cfq_entity_sched(e);
	u64 c = cfq_vtime_charge(service, e->weight), key = e->vdisktime + c;
	struct cfq_entity *next;

	if (spare && s->active && s->active != e &&
	    cfq_vtime_before(s->active->vdisktime + c, key)) {
		key = s->active->vdisktime + c;
		if (cfq_vtime_before(key, e->vdisktime))
			key = e->vdisktime;
	}
	e->vdisktime = key;
	if (e->tree) {
		next = cfq_st_next(e);
		/* The key only grows: re-sort only if it passed the next. */
		if (next && cfq_vtime_before(next->vdisktime, e->vdisktime)) {
			rb_erase_cached(&e->rb_node, e->tree);
			rb_add_cached(&e->rb_node, e->tree, cfq_st_less);
		}
	}
	cfq_st_update_min(cfq_entity_sched(e));
}

/* The heaviest busy entity of @s, found again after the last one left. */
static void cfq_sched_rescan_max(struct cfq_sched *s)
{
	struct rb_root_cached *trees[] = { &s->tree, &s->idle_tree };
	unsigned int max = 0, n = 0, i;
	struct cfq_entity *e;

	if (s->active && s->active->busy) {
		max = s->active->weight;
		n = 1;
	}
	for (i = 0; i < ARRAY_SIZE(trees); i++)
		for (e = cfq_st_first(trees[i]); e; e = cfq_st_next(e)) {
			if (!e->busy)
				continue;
			if (e->weight > max) {
				max = e->weight;
				n = 0;
			}
			n += e->weight == max;
		}
	WRITE_ONCE(s->max_weight, max);
	s->nr_max = n;
}

/* Count busy @e at its level (@d = 1) or stop counting it (-1). */
static void cfq_sched_count(struct cfq_sched *s, struct cfq_entity *e, int d)
{
	struct cfq_meta_data *cmd = e->in->cmd;
	u64 w = e->weight;

	if (d > 0 && s->nr_busy == 1)
		cmd->nr_forks++;
	else if (d < 0 && s->nr_busy == 2)
		cmd->nr_forks--;
	s->nr_busy += d;
	if (e->rtbe)
		s->nr_busy_rtbe += d;
	if (d > 0) {
		s->weight_sum += w;
		s->weight_sq_sum += w * w;
		if (w > s->max_weight) {
			WRITE_ONCE(s->max_weight, w);
			s->nr_max = 1;
		} else if (w == s->max_weight) {
			s->nr_max++;
		}
		return;
	}
	s->weight_sum -= w;
	s->weight_sq_sum -= w * w;
	if (!s->nr_busy) {	/* the last one: nothing to look for */
		WRITE_ONCE(s->max_weight, 0);
		s->nr_max = 0;
	} else if (w == s->max_weight && !--s->nr_max) {
		cfq_sched_rescan_max(s);
	}
}

/*
 * Does every busy entity of @e's level, @e counted as busy, have @e's
 * weight?  From the count, sum and sum of squares of the busy weights: n
 * weights all equal w exactly when they sum to n * w and their squares
 * to n * w^2 (their variance is then 0).
 */
static bool cfq_sched_among_equals(struct cfq_entity *e)
{
	struct cfq_sched *s = cfq_entity_sched(e);
	u64 w = e->weight, n = s->nr_busy, sum = s->weight_sum;
	u64 sq = s->weight_sq_sum;

	if (!e->busy) {
		n++;
		sum += w;
		sq += w * w;
	}
	return sum == n * w && sq == n * w * w;
}

/*
 * Put @e in the state of what is below it: @busy (requests queued) and
 * @rtbe (some of the RT or BE class).  True if its state changed, which
 * may change its level's group's in turn.
 */
static bool cfq_entity_set(struct cfq_entity *e, bool busy, bool rtbe,
			   bool keep)
{
	struct cfq_sched *s = cfq_entity_sched(e);
	bool was_busy = e->busy;

	if (e->busy == busy && e->rtbe == rtbe)
		return false;
	cfq_st_del(e);
	if (e->busy) {
		e->busy = false;	/* out of the max rescan */
		cfq_sched_count(s, e, -1);
	}
	e->rtbe = rtbe;
	if (busy) {
		e->busy = true;
		cfq_sched_count(s, e, 1);
		if (s->active != e)
			cfq_st_add(s, e, keep && !was_busy);
	}
	return true;
}

static void cfq_entity_set_weight(struct cfq_entity *e, unsigned int weight)
{
	struct cfq_sched *s = cfq_entity_sched(e);

	if (e->weight == weight)
		return;
	if (e->busy) {
		e->busy = false;
		cfq_sched_count(s, e, -1);
		e->busy = true;
	}
	WRITE_ONCE(e->weight, weight);
	if (e->busy)
		cfq_sched_count(s, e, 1);
}

/* ---------------------------------------------------------------------
 * Groups in the hierarchy
 */

/* For each entity on @cfqd's path, from its own queues up to the top. */
#define for_each_path_entity(cmd, cfqd, e)				\
	for (e = &(cfqd)->self; e;					\
	     e = e->in == &(cmd)->root ? NULL : &e->in->ent)

/*
 * @cfqd gets a request at @now after its queues ran dry: was that a gap it
 * did not choose?  Yes while its sync requests are still in the driver
 * (the next comes as one completes), and for group_idle after the last
 * one left: the time cfq would idle for the group's next request, the
 * think time of tasks that issue one request at a time.  A group back
 * within it keeps its place, as if it had been idled for.
 */
static bool cfq_group_may_keep(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd, u64 now)
{
	return cfqd->sync_in_driver ||
	       (cfqd->sync_done &&
		now - cfqd->sync_done <= cfq_tun_ns(cmd, CFQ_GROUP_IDLE));
}

/*
 * Do @cfqd's own queues no longer match its self entity: busy (requests
 * queued), of the RT or BE class?
 */
static bool cfq_group_self_changed(struct cfq_data *cfqd)
{
	return cfqd->self.busy != !!cfqd->nr_queued ||
	       cfqd->self.rtbe != (cfqd->busy[CFQ_CLASS_RT] ||
				   cfqd->busy[CFQ_CLASS_BE]);
}

/*
 * @cfqd's own queues changed (their first or last request, or the classes
 * they have requests in): bring its entities up the hierarchy in line,
 * as far as their state changes.  @keep: if they became busy, it was
 * after a gap the group did not choose (cfq_group_may_keep()).
 */
static void cfq_group_changed(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			      bool keep)
{
	struct cfq_entity *e = &cfqd->self;
	bool busy = cfqd->nr_queued;
	bool rtbe = cfqd->busy[CFQ_CLASS_RT] || cfqd->busy[CFQ_CLASS_BE];

	lockdep_assert_held(&cmd->lock);

	while (cfq_entity_set(e, busy, rtbe, keep) && e->in != &cmd->root) {
		struct cfq_sched *s = cfq_entity_sched(e);

		busy = s->nr_busy;
		rtbe = s->nr_busy_rtbe;
		e = &e->in->ent;
	}
}

/*
 * Charge @service to @cfqd's own queues, at every level of its path
 * (@spare: see cfq_entity_charge()).  But for the first level while
 * @cfqd has no child group: its own queues are alone there, and nothing
 * compares with their key (a child group, once made, starts at the
 * level's minimum, which follows that key), so the key stays as it is.
 */
static __always_inline void cfq_group_charge(struct cfq_meta_data *cmd,
					     struct cfq_data *cfqd, u64 service,
					     bool spare)
{
	struct cfq_entity *e;

	lockdep_assert_held(&cmd->lock);

	cfqd->service += service;
	for_each_path_entity(cmd, cfqd, e)
		if (e != &cfqd->self || cfqd->nr_children)
			cfq_entity_charge(e, service, spare);
}

/*
 * The group's key where it competes with other groups: in its parent's
 * tree, or for the root group, its own queues' against its children.
 */
static u64 cfq_group_key(struct cfq_data *cfqd)
{
	return cfqd->parent ? cfqd->ent.vdisktime : cfqd->self.vdisktime;
}

/* The group's own weight on this device. */
static unsigned int cfq_group_weight(struct cfq_data *cfqd)
{
	return cfqd->self.weight;
}

/*
 * Read the group's weight on this device (cfq.weight): when it is made,
 * and after a weight changed (cfq_group_weights_check()).
 */
static void cfq_group_read_weight(struct cfq_meta_data *cmd,
				  struct cfq_data *cfqd)
{
	unsigned int weight = cfq_cgroup_weight(cfqd->css, cmd->dev);

	lockdep_assert_held(&cmd->lock);

	cfq_entity_set_weight(&cfqd->self, weight);
	if (cfqd->parent)
		cfq_entity_set_weight(&cfqd->ent, weight);
}

/* cfq_group_weights_check() found the count moved: read them all. */
static noinline void cfq_group_weights_read(struct cfq_meta_data *cmd,
					    unsigned int seq)
{
	struct cfq_data *g;

	cmd->weight_seq = seq;
	list_for_each_entry(g, &cmd->groups, node)
		cfq_group_read_weight(cmd, g);
}

/*
 * From dispatch: if a cgroup's weight changed since this device last
 * looked, read every group's again.  Waiting groups too: one served only
 * in the slots the others leave (cfq_fill()) starts no turn of its own,
 * and kept its old weight for as long as that lasted.
 */
static __always_inline void cfq_group_weights_check(struct cfq_meta_data *cmd)
{
	unsigned int seq = cfq_cgroup_weight_seq();

	lockdep_assert_held(&cmd->lock);

	if (unlikely(seq != cmd->weight_seq))
		cfq_group_weights_read(cmd, seq);
}

static void cfq_entity_init(struct cfq_entity *e, struct cfq_data *cfqd,
			    struct cfq_data *in)
{
	RB_CLEAR_NODE(&e->rb_node);
	e->cfqd = cfqd;
	e->in = in;
	e->vdisktime = in->sched.min_vdisktime;
}

/* Set up @cfqd for @css under @parent (NULL: the root group). */
static void cfq_group_init(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   struct cgroup_subsys_state *css,
			   struct cfq_data *parent)
{
	int c;

	cfqd->cmd = cmd;
	refcount_set(&cfqd->ref, 1);
	cfqd->css = css;
	cfqd->parent = parent;
	cfqd->sched.tree = RB_ROOT_CACHED;
	cfqd->sched.idle_tree = RB_ROOT_CACHED;
	cfq_entity_init(&cfqd->self, cfqd, cfqd);
	if (parent) {
		cfq_entity_init(&cfqd->ent, cfqd, parent);
		refcount_inc(&parent->ref);
		parent->nr_children++;
	}
	for (c = 0; c < CFQ_NR_CLASSES; c++)
		cfqd->service_tree[c] = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&cfqd->queues);
	atomic_set(&cfqd->tags_held, 0);
	atomic_set(&cfqd->tags_pending, 0);
	cfqd->tag_limit = UINT_MAX;	/* until cfq_group_tag_limits() */
	init_waitqueue_head(&cfqd->gate_wq);
	cfq_group_read_weight(cmd, cfqd);
	cfq_cgroup_name(css, cfqd->name, sizeof(cfqd->name));
	cfqd->stat = cfq_cgroup_stat(css, cmd->dev);
	list_add_tail(&cfqd->node, &cmd->groups);
	cfqd->linked = true;
	cmd->nr_groups++;
}

static void cfq_group_get(struct cfq_data *cfqd)
{
	refcount_inc(&cfqd->ref);
}

static void cfq_group_put(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	struct cfq_data *parent;

	lockdep_assert_held(&cmd->lock);

	while (refcount_dec_and_test(&cfqd->ref)) {
		if (WARN_ON_ONCE(cfqd == &cmd->root))
			return;
		WARN_ON_ONCE(cfqd->self.tree || cfqd->ent.tree ||
			     cfqd->nr_queued || cfqd->in_driver ||
			     cfqd->sched.nr_busy || cmd->active == cfqd ||
			     !list_empty(&cfqd->queues));
		parent = cfqd->parent;
		cfq_cgroup_put(cfqd->css);
		kfree_rcu(cfqd, rcu);
		cfqd = parent;	/* the reference a child holds */
	}
}

/*
 * Make the group of @css, a child of @parent; NULL without memory.  The
 * group takes a css reference, its parent a group reference.
 */
static struct cfq_data *cfq_group_create(struct cfq_meta_data *cmd,
					 struct cgroup_subsys_state *css,
					 struct cfq_data *parent)
{
	struct cfq_data *cfqd;

	cfqd = kzalloc_node(sizeof(*cfqd), GFP_NOWAIT, cmd->queue->node);
	if (!cfqd)
		return NULL;
	if (xa_is_err(xa_store(&cmd->group_xa, cfq_cgroup_id(css), cfqd,
			       GFP_NOWAIT))) {
		kfree(cfqd);
		return NULL;
	}
	cfq_cgroup_get(css);
	cfq_group_init(cmd, cfqd, css, parent);
	cfq_log_cfqd(cmd, cfqd, "group created under [%s]", parent->name);
	return cfqd;
}

/* The group of @css if it has one on this device (O(1) by css id). */
static struct cfq_data *cfq_group_find(struct cfq_meta_data *cmd,
				       struct cgroup_subsys_state *css)
{
	if (!css || cfq_cgroup_is_root(css))
		return &cmd->root;
	return xa_load(&cmd->group_xa, cfq_cgroup_id(css));
}

/*
 * The group of @css on this device, made on first use with any of its
 * ancestors that have none yet, top down.  A cgroup being removed gets
 * none (its offline has run or is running, so nothing would let go of
 * a group made now): its requests go to its nearest ancestor's group.
 * Without memory, the nearest ancestor that has one.
 */
static struct cfq_data *cfq_group_lookup(struct cfq_meta_data *cmd,
					 struct cgroup_subsys_state *css,
					 bool create)
{
	struct cgroup_subsys_state *pos, *up;
	struct cfq_data *cfqd, *parent;

	lockdep_assert_held(&cmd->lock);

	cfqd = cfq_group_find(cmd, css);
	if (cfqd || !create)
		return cfqd;
	while (cfq_cgroup_is_dying(css)) {
		css = cfq_cgroup_parent(css);
		cfqd = cfq_group_find(cmd, css);
		if (cfqd)
			return cfqd;
	}
	for (;;) {
		/* The highest of css and its ancestors without a group. */
		for (pos = css;; pos = up) {
			up = cfq_cgroup_parent(pos);
			parent = cfq_group_find(cmd, up);
			if (parent)
				break;
		}
		cfqd = cfq_group_create(cmd, pos, parent);
		if (!cfqd)
			return parent;
		if (pos == css)
			return cfqd;
	}
}

static u64 cfq_group_clock(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 now)
{
	if (cmd->active != cfqd)
		return cfqd->clock;
	return cfqd->clock + (now - cfqd->turn_start);
}

/*
 * @cfqd was charged @extra ns more than its request took (a write the
 * disk's cache took, cfq_media_charge()): its clock counts them as
 * passed, and so does its turn if it is served, so that its queues'
 * slices and its turn end on what it is charged, as they do on the time
 * its requests take.
 */
static void cfq_group_advance(struct cfq_meta_data *cmd,
			      struct cfq_data *cfqd, u64 extra)
{
	lockdep_assert_held(&cmd->lock);

	if (cmd->active == cfqd)
		cfqd->turn_start -= extra;
	else
		cfqd->clock += extra;
}

/*
 * The served @cfqd was charged @ns more this turn than it took (a cached
 * write's price, cfq_writeback_flush()): take them back, as far as its
 * keys went this turn.  Its path is off the trees while it is served.
 */
static void cfq_group_refund(struct cfq_meta_data *cmd,
			     struct cfq_data *cfqd, u64 ns)
{
	struct cfq_entity *e;
	u64 c;

	lockdep_assert_held(&cmd->lock);

	if (cmd->active != cfqd)
		return;
	for_each_path_entity(cmd, cfqd, e) {
		if (e == &cfqd->self && !cfqd->nr_children)
			continue;
		c = cfq_vtime_charge(ns, e->weight);
		if (cfq_vtime_before(e->vdisktime - c, e->turn_key))
			e->vdisktime = e->turn_key;
		else
			e->vdisktime -= c;
	}
	cfqd->service -= min(ns, cfqd->service - cfqd->turn_service);
}

/*
 * A turn: group_slice for the RFC's prio 0 (weight 200), in proportion;
 * on a disk (cfq_disk_far()), at least CFQ_TURN_SEEKS far requests long:
 * each turn starts with a seek to the group's data, and on a disk holding
 * one command at a time (cfq_idles_seeky()) short turns are where the
 * head's time goes.  Shares do not move, as a turn is charged what it
 * took: a light group waits longer for its next one.  Twice group_slice
 * caps it.
 *
 * In I/O-count mode while the tag gates are in use, a turn is no longer
 * than the requests the group's gate lets it hold.  On a device that
 * holds a request for longer than a turn takes, a group cannot send more
 * than that before its first request completes: it runs dry there and its
 * turn ends, while a group whose gate holds a whole turn uses all of it.
 * On a depth-32 device at 20 ms a request, 64 tags and 100 readers in
 * each of three groups of weights 8/4/1 (turns of 100/50/12.5 requests,
 * gates of 40/20/5 tags), the groups got 79/17/4 % of the requests.  The
 * gates follow the weights, so turns cut to them do too.
 */
static u64 cfq_turn_budget(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	u64 slice = cfq_tun_ns(cmd, CFQ_GROUP_SLICE);
	u64 turn = div_u64(slice * cfq_group_weight(cfqd), CFQ_WEIGHT_TURN);

	turn = max(turn, CFQ_TURN_SEEKS * cfq_disk_far(cmd));
	if (cfq_iops_mode(cmd) && cmd->gating)
		turn = min_t(u64, turn,
			     (u64)cfqd->tag_limit * CFQ_IOPS_CHARGE_NS);
	return clamp_t(u64, turn, CFQ_MIN_TURN_NS, 2 * slice);
}

/*
 * A turn of @cfqd begins at @now, served or renewed in place.  Its budget
 * is fixed now, as its weight is (cfq_group_activate()).  In time mode a
 * turn ends at the first dispatch past its budget, and the request then
 * in the driver is charged after it: a turn is charged up to a request
 * more than its budget, which is a large part of a light group's short
 * turn.  Keys stay right, but the groups' keys drift apart a little each
 * round, until one group is a whole turn behind and gets two in a row:
 * a second in which its share is several points too high.  So a turn's
 * budget is cut by what the last one was charged past its own (by at most
 * half), and each group's turns are charged their budget on average.  In
 * I/O-count mode, where a waiting group also fills free slots, the budget
 * is left whole.
 */
static void cfq_turn_begin(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 now)
{
	u64 budget = cfq_turn_budget(cmd, cfqd);
	u64 used = cfqd->service - cfqd->turn_service;

	if (!cfq_iops_mode(cmd) && used > cfqd->turn_budget)
		budget -= min(used - cfqd->turn_budget, budget / 2);
	cfqd->turn_budget = budget;
	cfqd->turn_start = now;
	cfqd->turn_service = cfqd->service;
	cfqd->turn_sent = 0;
	cfqd->turns++;
}

/* @cfqd's own queues are to be served: its path leaves the trees. */
static void cfq_path_activate(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	u64 seq = ++cmd->turn_seq;
	struct cfq_entity *e;

	for_each_path_entity(cmd, cfqd, e) {
		cfq_st_del(e);
		e->last_turn = seq;
		e->turn_key = e->vdisktime;
		cfq_entity_sched(e)->active = e;
		cfq_st_update_min(cfq_entity_sched(e));
	}
	cmd->active = cfqd;
}

/* The turn of @cfqd's own queues ended: its busy path goes back. */
static void cfq_path_deactivate(struct cfq_meta_data *cmd,
				struct cfq_data *cfqd)
{
	struct cfq_entity *e;

	cmd->active = NULL;
	for_each_path_entity(cmd, cfqd, e) {
		struct cfq_sched *s = cfq_entity_sched(e);

		s->active = NULL;
		e->turn_vt = e->vdisktime - e->turn_key;
		if (e->busy)
			cfq_st_add(s, e, true);
		cfq_st_update_min(s);
	}
}

/* @cfqd's own queues are served, for a turn, from @now. */
static void cfq_group_activate(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd, u64 now)
{
	lockdep_assert_held(&cmd->lock);

	cfq_path_activate(cmd, cfqd);
	cfq_turn_begin(cmd, cfqd, now);
	if (cfqd->busy_since) {
		if (cfqd->stat)
			cfqd->stat->wait_ns += now - cfqd->busy_since;
		cfqd->busy_since = 0;
	}
	cfq_log_cfqd(cmd, cfqd, "turn start, vdisktime %llu weight %u budget %llu",
		     cfq_group_key(cfqd), cfq_group_weight(cfqd),
		     cfqd->turn_budget);
}

/*
 * Let go of @cfqd if its cgroup is gone and it has nothing left to do
 * here, then of its parent on the same terms.  A group may be freed: the
 * caller must not use it afterwards.
 */
static void cfq_group_try_reap(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd)
{
	struct cfq_data *parent;

	lockdep_assert_held(&cmd->lock);

	while (cfqd != &cmd->root && cfqd->linked && cmd->active != cfqd &&
	       !cfqd->nr_queued && !cfqd->in_driver && !cfqd->nr_children &&
	       cfq_cgroup_is_dying(cfqd->css)) {
		cfq_log_cfqd(cmd, cfqd, "group reaped");
		parent = cfqd->parent;
		cfq_group_unlink(cmd, cfqd);
		cfqd = parent;
	}
}

/* End the active group's turn: its path goes back to the trees. */
static void cfq_group_expire(struct cfq_meta_data *cmd, u64 now)
{
	struct cfq_data *cfqd = cmd->active;

	lockdep_assert_held(&cmd->lock);

	if (!cfqd)
		return;
	cmd->events[CFQ_EV_GROUP_EXPIRE]++;
	cfq_idle_cancel(cmd, now);
	cfqd->clock += now - cfqd->turn_start;
	if (!cfqd->nr_queued)	/* ran dry while served: see cfq_remove_rq() */
		cfq_group_changed(cmd, cfqd, false);
	cfq_path_deactivate(cmd, cfqd);
	if (cfqd->nr_queued)
		cfqd->busy_since = now;
	cfq_log_cfqd(cmd, cfqd, "turn end, vdisktime %llu, %u queued",
		     cfq_group_key(cfqd), cfqd->nr_queued);
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
 * The group to serve next: from the top, at each level the first entity
 * with RT or BE work (cfq_st_pick()), else, once the device has been idle
 * long enough for the IDLE class, the first of those with only IDLE-class
 * work; down to a group's own queues.
 */
static struct cfq_data *cfq_group_pick(struct cfq_meta_data *cmd, u64 now)
{
	bool idle_ok = cfq_idle_class_allowed(cmd, now);
	struct cfq_sched *s = &cmd->root.sched;
	struct cfq_entity *e;

	lockdep_assert_held(&cmd->lock);

	for (;;) {
		e = cfq_st_pick(s);
		if (!e && idle_ok)
			e = cfq_st_first(&s->idle_tree);
		if (!e)
			return NULL;
		if (cfq_entity_is_self(e))
			return e->cfqd;
		s = &e->cfqd->sched;
	}
}

/*
 * Is anything else waiting for the device with RT or BE work: at some
 * level of @cfqd's path, an entity other than the path's?
 */
static __always_inline bool cfq_others_waiting(struct cfq_meta_data *cmd,
					       struct cfq_data *cfqd)
{
	struct cfq_entity *e, *first;

	if (!cmd->nr_waiting)
		return false;
	for_each_path_entity(cmd, cfqd, e) {
		first = cfq_st_first(&cfq_entity_sched(e)->tree);
		if (first && (first != e || cfq_st_next(first)))
			return true;
	}
	return false;
}

/*
 * Would @cfqd be picked again if its turn ended now, and for how long: at
 * every level of its path, is its entity's key still before the first
 * waiting one's?  (The tree puts an entity after those with its key: a
 * tie goes to the other.)  Returns 0 if not; else the service it may have
 * before one of them comes first, at least 1, or U64_MAX if none waits.
 */
static u64 cfq_group_owed(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	struct cfq_entity *e, *first;
	u64 owed = U64_MAX;

	for_each_path_entity(cmd, cfqd, e) {
		first = cfq_st_first(&cfq_entity_sched(e)->tree);
		if (!first)
			continue;
		if (!cfq_vtime_before(e->vdisktime, first->vdisktime))
			return 0;
		owed = min(owed, max(div_u64((first->vdisktime -
					      e->vdisktime) * e->weight,
					     CFQ_WEIGHT_DEFAULT), 1ULL));
	}
	return owed;
}

/*
 * Has @cfqd used its turn?  A turn lasts its budget of time, and in
 * I/O-count mode no more than its budget of requests either (a request
 * counts CFQ_IOPS_CHARGE_NS).  There other groups run beside the served
 * one (cfq_fill()), and a group's requests are served at the rate its
 * tasks make them, whatever its weight: measured in time alone, a light
 * group's turn on a fast device takes many times its share of requests,
 * and the others then wait behind its key until they have caught up, in
 * stretches that show in a second's shares.  In time mode the two
 * measures are the same while the group is served alone.
 *
 * The requests are counted as they are sent to the driver, not as they
 * complete: on a device that holds many requests for long, a turn that
 * waits for its budget to complete has sent as many again as the device
 * holds by then, while a group that cannot queue that many (its tag gate,
 * see cfq_turn_budget()) runs dry at its budget and hands its turn on.
 * Each is still charged what completes.
 */
static __always_inline bool cfq_turn_used(struct cfq_meta_data *cmd,
					  struct cfq_data *cfqd, u64 now)
{
	u64 budget = cfqd->turn_budget;

	return now - cfqd->turn_start >= budget ||
	       (cfq_iops_mode(cmd) &&
		(u64)cfqd->turn_sent * CFQ_IOPS_CHARGE_NS >= budget);
}

/*
 * Used its turn: yield if another entity waiting on its path now comes
 * first, else start a new turn in place.  (@cfqd is served, so its path
 * is off the trees: whatever waits there is another's.)  A group still
 * owed service keeps the device even if its queues are dry at this
 * moment (its tasks are between requests): handing the turn over would
 * give the next group a whole turn it is not owed, every time, while the
 * owed group's credit only grows.  It keeps it for what it is owed, no
 * more than a turn: a turn whose first milliseconds went to the last
 * request of the group before it ends owed those, and a whole new turn
 * for them would be two turns in a row.
 */
static __always_inline bool cfq_turn_over(struct cfq_meta_data *cmd,
					  struct cfq_data *cfqd, u64 now)
{
	u64 owed;

	if (!cfq_turn_used(cmd, cfqd, now))
		return false;
	owed = cfq_group_owed(cmd, cfqd);
	if (!owed)
		return true;
	cfqd->clock += now - cfqd->turn_start;
	cfq_turn_begin(cmd, cfqd, now);
	cfqd->turn_budget = min(cfqd->turn_budget,
				max_t(u64, owed, CFQ_MIN_TURN_NS));
	return false;
}

/*
 * Would every busy group's own queues get the same share, with @cfqd busy
 * too?  Then idling for it cannot change anyone's share.  Equal weights
 * at every level of @cfqd's path are not enough in a tree: beside A with
 * two busy children, B gets 1/2 and each child 1/4.  So this holds only
 * while at most one level has more than one busy entity (all busy groups
 * hang from there by single chains, @cfqd's among them) and all of that
 * level's busy entities weigh the same; that level is on @cfqd's path.
 */
static bool cfq_group_among_equals(struct cfq_meta_data *cmd,
				   struct cfq_data *cfqd)
{
	unsigned int forks = cmd->nr_forks;
	struct cfq_entity *e;

	for_each_path_entity(cmd, cfqd, e) {
		/* @cfqd ran dry: count the levels its return would fork. */
		if (!e->busy && cfq_entity_sched(e)->nr_busy == 1)
			forks++;
		if (forks > 1 || !cfq_sched_among_equals(e))
			return false;
	}
	return true;
}

static __always_inline bool cfq_group_should_idle(struct cfq_meta_data *cmd,
						  struct cfq_data *cfqd)
{
	return cmd->tun[CFQ_GROUP_IDLE] && cfq_others_waiting(cmd, cfqd) &&
	       !cfq_tags_full(cmd) &&
	       !(cfq_equal_noidle(cmd) && cfq_group_among_equals(cmd, cfqd));
}

/*
 * A served group with nothing queued keeps its turn while its sync
 * requests in the driver may bring more (their completion arms group
 * idling) or group idling runs.
 */
static bool cfq_group_holds(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	return !cfqd->nr_queued && cfq_group_should_idle(cmd, cfqd) &&
	       (cfqd->sync_in_driver || cmd->idling == CFQ_IDLE_GROUP);
}

/* The group whose own queues come first below @e, or NULL (IDLE only). */
static struct cfq_data *cfq_entity_first_group(struct cfq_entity *e)
{
	while (e && !cfq_entity_is_self(e))
		e = cfq_st_first(&e->cfqd->sched.tree);
	return e ? e->cfqd : NULL;
}

/*
 * May @g, below the waiting entity @e, put a request into a free slot of
 * a device of @depth while @a, @e's sibling on the served path, is
 * served?  @g takes no more of the device's slots than its weight's part
 * of the two, at least one, so that the served group finds slots for its
 * next requests.  If the slot is @spare (see cfq_fill()), the served
 * group has none in use and its tasks think before their next request:
 * the waiting groups may then fill all of the device's slots but one,
 * which that request finds (a device of depth 1: its one slot, free
 * while the thinker's next request has not come).  Unless the slot is
 * spare, only if @e's key, with @g's requests in the driver and this one
 * charged in advance, is not after @a's with the served group's @served
 * requests in the driver charged in advance too, by more than one turn
 * of @g.  Both sides count what they have in
 * the driver, which completes and is charged whatever happens: a light
 * group served with its requests just sent does not keep a heavier one
 * waiting until the first of them completes.  The lead of a turn lets @g
 * fill the slots the served group leaves between its requests for as
 * long as its turn lasts, rather than only until the keys meet, early in
 * the turn; @a's next turn, which comes first, gives the lead back, so
 * the groups' turns and their shares still follow the weights.
 */
static bool cfq_entity_may_fill(struct cfq_entity *e, struct cfq_entity *a,
				struct cfq_data *g, unsigned int depth,
				unsigned int served, bool spare)
{
	unsigned int cap;
	u64 key;

	if (spare)
		return e->in->cmd->in_driver + 1 < max(depth, 2U);
	cap = depth * e->weight / (e->weight + a->weight);
	if (g->in_driver >= max(cap, 1U))
		return false;
	key = e->vdisktime +
	      cfq_vtime_charge((u64)(g->in_driver + 1) * CFQ_IOPS_CHARGE_NS,
			       e->weight) -
	      cfq_vtime_charge(cfq_turn_budget(e->in->cmd, g), e->weight);
	return !cfq_vtime_before(a->vdisktime +
				 cfq_vtime_charge((u64)served *
						  CFQ_IOPS_CHARGE_NS,
						  a->weight), key);
}

/*
 * A group that may use a slot the served group leaves free on a device of
 * @depth (I/O-count mode; see cfq_fill()).  From the top down the served
 * path: at each level, the first entity waiting there, through the
 * first groups below it, if cfq_entity_may_fill() lets it.  Only the
 * first: it has the smallest key of its level.
 */
static struct cfq_data *cfq_group_fill_pick(struct cfq_meta_data *cmd,
					    unsigned int depth, bool spare)
{
	struct cfq_entity *a = cmd->root.sched.active, *e;
	unsigned int served = cmd->active ? cmd->active->in_driver : 0;
	struct cfq_data *g;

	lockdep_assert_held(&cmd->lock);

	for (; a; a = cfq_entity_is_self(a) ? NULL : a->cfqd->sched.active) {
		e = cfq_st_first(&cfq_entity_sched(a)->tree);
		g = cfq_entity_first_group(e);
		if (g && cfq_entity_may_fill(e, a, g, depth, served, spare))
			return g;
	}
	return NULL;
}

/*
 * Every group's tag limit for the gate (cfq_gate_open()): at every level of
 * its path, the weight of the entity against those at the level whose
 * subtree holds sync requests (tags_held), itself counted; its own tasks
 * compete with its children as its self entity.  The gates are looked at
 * only while two groups or more hold tags (gating).  Called under the lock
 * every CFQ_TAG_PERIOD_NS from dispatch; the gate reads the result
 * without it.  Groups are listed parents first.
 *
 * While the gates stay unused, the limits are not worked out: no task
 * comes to a gate, and whoever waited at one when they went out of use
 * was let through by the limits of that moment, or waits for a group
 * that holds no tag, whose gate is open whatever its limit.  That keeps
 * the cost of a device with many groups, one of them busy, to a count.
 */
static void cfq_group_tag_limits(struct cfq_meta_data *cmd)
{
	unsigned int depth = READ_ONCE(cmd->depth), frac, old, holders = 0;
	struct cfq_data *g;
	bool own;

	lockdep_assert_held(&cmd->lock);

	if (!cmd->gating) {
		list_for_each_entry(g, &cmd->groups, node)
			if (cfq_group_tags(g) > 0 && ++holders > 1)
				break;
		if (holders < 2 || !cmd->tun[CFQ_GROUP_DEPTH])
			return;
		holders = 0;
	}
	list_for_each_entry(g, &cmd->groups, node)
		g->tag_sum = 0;
	/* Children first: the busy weight at each level. */
	list_for_each_entry_reverse(g, &cmd->groups, node) {
		own = cfq_group_tags(g) > 0;
		holders += own;
		g->tag_holds = own || g->tag_sum;
		if (own)
			g->tag_sum += g->self.weight;
		if (g->tag_holds && g->parent)
			g->parent->tag_sum += g->ent.weight;
	}
	/* Parents first: each path's part, then the group's own. */
	list_for_each_entry(g, &cmd->groups, node) {
		g->tag_path = !g->parent ? CFQ_TAG_ONE :
			cfq_tag_frac(g->parent->tag_path, g->ent.weight,
				     g->parent->tag_sum +
				     (g->tag_holds ? 0 : g->ent.weight));
		own = cfq_group_tags(g) > 0;
		frac = cfq_tag_frac(g->tag_path, g->self.weight,
				    g->tag_sum + (own ? 0 : g->self.weight));
		old = g->tag_limit;
		WRITE_ONCE(g->tag_limit, cfq_tag_limit(depth, frac));
		/*
		 * Who waits for a larger part need not wait for a poll (a
		 * waiter that comes meanwhile checks the limit after it
		 * queued itself).
		 */
		if (g->tag_limit > old && waitqueue_active(&g->gate_wq))
			wake_up(&g->gate_wq);
	}
	/* One group alone may take every tag: no gate to look at. */
	WRITE_ONCE(cmd->gating, cmd->tun[CFQ_GROUP_DEPTH] && holders > 1);
}

/*
 * Release a group's queues and drop the group's existence reference.
 * Children are unlinked before their parents.
 */
static void cfq_group_unlink(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq, *tmp;
	int c, l;

	lockdep_assert_held(&cmd->lock);

	if (cmd->dirty_group == cfqd)
		cmd->dirty_group = NULL;
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
	WARN_ON_ONCE(cfqd->nr_children);
	xa_erase(&cmd->group_xa, cfq_cgroup_id(cfqd->css));
	list_del(&cfqd->node);
	WRITE_ONCE(cfqd->linked, false);
	wake_up_all(&cfqd->gate_wq);	/* its tasks go where they now are */
	cfqd->parent->nr_children--;
	cmd->nr_groups--;
	cfq_group_put(cmd, cfqd);
}

#ifdef CONFIG_CFQ_KUNIT_TEST
#include "cfq-group-test.c"
#endif
