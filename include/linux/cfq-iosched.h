/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two-layer CFQ: shared definitions of the cfq elevator and the cfq cgroup
 * subsystem.
 *
 * Layers
 * ------
 * struct cfq_meta_data (one per device, the elevator instance) holds the
 * hierarchy of groups and picks the group to serve.  struct cfq_data (one
 * per device x cgroup, the cgroup hierarchy's shape) is a level of it:
 * its child groups and its own queues compete on its service tree (struct
 * cfq_sched) as entities (struct cfq_entity), by virtual disk time; and it
 * runs conventional per-task CFQ over its own struct cfq_queue objects
 * (one sync queue per io_context, async queues per I/O class and level).
 * The cgroup side is an adapter the scheduler calls (cfq_cgroup_*()
 * below); it calls into the scheduler once, when a group is removed, so
 * that every device frees that group's state
 * (cfq_sched_cgroup_offline()).
 *
 * Locking
 * -------
 * - cmd->lock: one spinlock per device.  It protects every field of
 *   cfq_meta_data, cfq_data, cfq_queue and cfq_io_cq except those marked
 *   otherwise.  Completion (completed_request, finish_request,
 *   requeue_request) and the idle hrtimer run in hard or soft IRQ context,
 *   so the lock is IRQ-safe: spin_lock_irqsave() there, spin_lock_irq() in
 *   the hooks that always run in process context with IRQs enabled.
 * - cfq_devices_lock (a mutex in cfq-iosched.c) guards the list of cfq
 *   devices; cgroup_mutex -> cfq_devices_lock -> cmd->lock.
 * - cmd->group_xa (a device's groups by css id) is written and read only
 *   under cmd->lock; its own lock nests inside it and is therefore only
 *   ever taken with IRQs off.
 * - Lock order: q->queue_lock -> ioc->lock -> cmd->lock.  exit_icq runs
 *   with ioc->lock held and IRQs off and takes cmd->lock.  Nothing takes
 *   q->queue_lock or ioc->lock while holding cmd->lock, so io_cq lookups
 *   are done before cmd->lock is taken.
 * - has_work() reads cmd->nr_queued, cmd->waiting and cmd->ahead without
 *   the lock (READ_ONCE/WRITE_ONCE); a stale answer costs one dispatch
 *   attempt.  bio_merge() reads cmd->nr_queued too; a stale zero costs a
 *   merge.
 * - cmd->ahead[], requests already dispatched by an insert or by a
 *   completion that ended a wait, are set under cmd->lock
 *   (smp_store_release(), only while every slot is NULL) and taken
 *   without it by dispatch_request (xchg()), so the queue run that
 *   follows takes no lock.
 * - A cgroup's weight may change at any time (cfq.weight, cfq.ioprio).  A
 *   cfq_data reads it into its entities when it is created; each change
 *   moves a count (cfq_cgroup_weight_seq()), and the next dispatch on
 *   every device that sees it move reads all its groups' weights again,
 *   waiting groups included.
 * - limit_depth() finds the submitter's group without the lock, under
 *   RCU (cfq_data is freed after a grace period), and reads its
 *   tag_limit (written under cmd->lock, READ_ONCE/WRITE_ONCE).  A
 *   group's tags_held is atomic: raised at insert under cmd->lock,
 *   dropped by finish_request without it, which then wakes the group's
 *   gate_wq.  Tasks sleep on gate_wq holding a reference on the group,
 *   taken with refcount_inc_not_zero() under RCU.
 *
 * Lifetimes
 * ---------
 * - cfq_queue: refcount_t.  One reference per request attached to it, one
 *   from the io_cq that points at it (sync queues), one from its cfq_data's
 *   async table (async queues), one while it is a group's active queue.
 *   Taken under cmd->lock; dropped under it too, except that a finishing
 *   request drops a reference that is not the last without the lock.
 *   Freed, under cmd->lock, at zero.
 * - cfq_data: refcount_t.  One reference while it is linked on
 *   cmd->groups and cmd->group_xa (dropped when the group is reaped: at
 *   the cgroup's offline if it has no I/O left and no child group, else
 *   when its last request leaves the driver or its last child is reaped;
 *   or at elevator exit), one per cfq_queue and one per child group.  A
 *   group's parents are made before it.  No group is made for a cgroup
 *   that is already being removed: its requests go to its nearest
 *   ancestor that has one.  The root group is embedded in cfq_meta_data
 *   and lives as long as it.
 * - A cfq_data holds a css reference on its cgroup.  A request holds one
 *   from prepare_request until it is inserted, where its queue's group
 *   (which holds its own) takes over; a request freed without being
 *   inserted drops it in finish_request.  A request also holds an
 *   io_context reference from prepare_request to finish_request.
 * - A request inserted again after a requeue keeps its queue; if that
 *   queue's group was reaped meanwhile (its cgroup removed while the
 *   request sat on blk-mq's requeue list), it moves to the root group.
 */
#ifndef _LINUX_CFQ_IOSCHED_H
#define _LINUX_CFQ_IOSCHED_H

#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <linux/hrtimer.h>
#include <linux/iocontext.h>
#include <linux/ioprio.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

/*
 * Group weights (cfq.weight), as io.weight: 1..10000, default 100, the
 * unit of virtual disk time.  The RFC's group priority p (cfq.ioprio,
 * 0..7, default 4) is the weight 25 * (8 - p): 200, 100 and 25 for 0, 4
 * and 7, the RFC's 8:4:1.
 */
#define CFQ_WEIGHT_MIN			1
#define CFQ_WEIGHT_MAX			10000
#define CFQ_WEIGHT_DEFAULT		100
#define CFQ_WEIGHT_PER_IOPRIO		25
/* The level of a task without an I/O priority of its own (nice 0). */
#define CFQ_LEVEL_DEFAULT		4

/*
 * Requests an insert may dispatch for the queue run that follows it: the
 * one the run takes, and a second so that, where nothing else may go, the
 * run finds the scheduler waiting instead of taking the lock to learn it.
 */
#define CFQ_AHEAD_SLOTS			2

/* Directions, for statistics. */
enum cfq_dir {
	CFQ_READ,
	CFQ_WRITE,
	CFQ_NR_DIRS,
};

/*
 * A group's statistics on one device (cfq.stat), kept by the cgroup and
 * updated by that device's elevator under its lock; read without it.
 */
struct cfq_stat {
	struct list_head	node;		/* cfq_cgroup's, RCU */
	dev_t			dev;
	u64			bytes[CFQ_NR_DIRS];	/* dispatched */
	u64			ios[CFQ_NR_DIRS];
	u64			service_ns;	/* device time attributed */
	u64			wait_ns;	/* busy, waiting for a turn */
	u64			idle_ns;	/* device kept idle for it */
};

/* I/O classes, in service order. */
enum cfq_class {
	CFQ_CLASS_RT,
	CFQ_CLASS_BE,
	CFQ_CLASS_IDLE,
	CFQ_NR_CLASSES,
};

/* sysfs tunables, /sys/block/X/queue/iosched/<name>; see cfq-iosched.c. */
enum cfq_tunable {
	CFQ_QUANTUM,
	CFQ_FIFO_EXPIRE_SYNC,
	CFQ_FIFO_EXPIRE_ASYNC,
	CFQ_BACK_SEEK_MAX,
	CFQ_BACK_SEEK_PENALTY,
	CFQ_SLICE_SYNC,
	CFQ_SLICE_ASYNC,
	CFQ_SLICE_ASYNC_RQ,
	CFQ_SLICE_IDLE,
	CFQ_GROUP_IDLE,
	CFQ_LOW_LATENCY,
	CFQ_TARGET_LATENCY,
	CFQ_GROUP_SLICE,
	CFQ_SERVICE_MODE,
	CFQ_GROUP_DEPTH,
	CFQ_EQUAL_NOIDLE,
	CFQ_FILL_SLOTS,
	CFQ_WRITEBACK_FLUSH,
	CFQ_NR_TUNABLES,
};

/* A dispatched request, by its distance from the previous one. */
enum cfq_seek_kind {
	CFQ_SEEK_NEAR,
	CFQ_SEEK_FAR,
	CFQ_NR_SEEK_KINDS,
};

/*
 * ... and by its size: a large request's transfer time would hide what
 * its seek cost (CFQ_SVC_LARGE_BYTES).
 */
enum cfq_svc_size {
	CFQ_SVC_SMALL,
	CFQ_SVC_LARGE,
	CFQ_NR_SVC_SIZES,
};

/*
 * What a read costs the device, and the time writes were charged beyond
 * what they took (cfq_media_charge(); time mode only, ns).
 */
struct cfq_media {
	u64	read_mean[CFQ_NR_SVC_SIZES];
	u32	read_samples[CFQ_NR_SVC_SIZES];
	u64	debt;
	s32	write_step;	/* a cached write's price less a read's, 1/16ths */
	u32	writes;		/* cached writes since write_step moved */
	bool	owing;		/* a cached write owed since the debt was 0 */
	s64	read_net;	/* depth 1: reads' time over their mean, net */
	u64	overrun;	/* depth 1: write-back waited for past the debt */
	u16	debt_writes;	/* cached writes since the debt was last 0 */
};

/* Scheduler events counted per device (debugfs "events"). */
enum cfq_event {
	CFQ_EV_DISPATCH,	/* dispatch_request calls */
	CFQ_EV_DISPATCH_NONE,	/* ... that returned no request */
	CFQ_EV_WAIT,		/* ... that left work queued behind a wait */
	CFQ_EV_KICK,		/* queue runs we asked for (a wait ended) */
	CFQ_EV_IDLE_ARM,	/* idle timer armed */
	CFQ_EV_IDLE_EXPIRE,	/* idle timer ran out */
	CFQ_EV_SLICE_EXPIRE,	/* queue slices ended */
	CFQ_EV_GROUP_EXPIRE,	/* group turns ended */
	CFQ_EV_REQUEUE_PAST,	/* requeued straight to the driver (DONTPREP) */
	CFQ_EV_FILL_QUEUE,	/* free slots filled by another queue ... */
	CFQ_EV_FILL_GROUP,	/* ... or by another group */
	CFQ_EV_FILL_GAP,	/* ... or in a thinker's gap (time mode) */
	CFQ_EV_AHEAD,		/* chosen at insert or completion (ahead[]) */
	CFQ_EV_MEDIA_PROBE,	/* reads sent first to price a write cache */
	CFQ_EV_FLUSH,		/* caches flushed at a writers' turn end */
	CFQ_EV_FLUSH_FAILED,	/* ... that failed or could not be sent */
	CFQ_NR_EVENTS,
};

/* Values of the service_mode tunable. */
enum cfq_service_mode {
	CFQ_SERVICE_AUTO,	/* time on rotational devices, else I/O count */
	CFQ_SERVICE_TIME,
	CFQ_SERVICE_IOPS,
};

/* What the device is being kept idle for, if anything. */
enum cfq_idle_kind {
	CFQ_IDLE_NONE,
	CFQ_IDLE_QUEUE,		/* active sync queue's next request */
	CFQ_IDLE_GROUP,		/* active group's next request */
	CFQ_IDLE_CLASS_DELAY,	/* device not idle long enough for IDLE class */
	CFQ_IDLE_FLUSH,		/* a flush of the writers' cache, cfq's own */
};

struct cfq_data;
struct cfq_flush;
struct cfq_io_cq;

/*
 * Something served from a group's service tree: a child group (its
 * `ent`) or the group's own queues (its `self`).
 */
struct cfq_entity {
	struct rb_node		rb_node;
	/* While busy and not active: the tree of its level it waits on. */
	struct rb_root_cached	*tree;
	struct cfq_data		*cfqd;		/* whose entity this is */
	struct cfq_data		*in;		/* whose tree it competes on */
	u64			vdisktime;
	/* Its last turn: cmd->turn_seq then, its key then, what it moved. */
	u64			last_turn;
	u64			turn_key;
	u64			turn_vt;
	unsigned int		weight;
	bool			busy;		/* has requests below it */
	bool			rtbe;		/* ... of the RT or BE class */
};

/*
 * A level of the hierarchy: the entities of one group (its children and
 * its own queues) compete here, by virtual disk time.
 */
struct cfq_sched {
	struct rb_root_cached	tree;		/* waiting with RT/BE work */
	struct rb_root_cached	idle_tree;	/* ... with IDLE work only */
	u64			min_vdisktime;	/* the level's virtual time */
	struct cfq_entity	*active;	/* served: off its tree */
	/* Busy entities: count, with RT/BE work, weight sums, heaviest. */
	unsigned int		nr_busy;
	unsigned int		nr_busy_rtbe;
	u64			weight_sum;
	u64			weight_sq_sum;
	unsigned int		max_weight;	/* debugfs */
	unsigned int		nr_max;
};

/* Flags of a cfq_queue (cfqq->flags bit numbers). */
enum cfqq_flag {
	CFQQ_ON_RR,		/* on its class's service tree */
	CFQQ_SYNC,
	CFQQ_IDLE_WINDOW,	/* worth idling for its next request */
	CFQQ_SLICE_STARTED,	/* slice_end is valid */
	CFQQ_FIFO_SERVED,	/* served its FIFO head this slice */
	CFQQ_PRIO_CHANGED,	/* ioprio changed while on a tree */
};

/* One per task io_context (sync) or per (class, level) of a group (async). */
struct cfq_queue {
	refcount_t		ref;
	struct cfq_data		*cfqd;
	struct list_head	group_node;	/* cfqd->queues */
	struct cfq_io_cq	*cic;		/* owner of a sync queue, or NULL */

	struct rb_node		rb_node;	/* cfqd->service_tree[class] */
	u64			rb_key;		/* ns: round-robin position */

	struct rb_root		sort_list;	/* requests by sector */
	struct list_head	fifo;		/* requests by deadline */
	struct request		*next_rq;	/* next in sector order */
	unsigned int		queued;
	unsigned int		dispatched;	/* in the driver */

	/* Slice, in the group's clock (ns the group has been served). */
	u64			slice_end;
	unsigned int		slice_dispatch;
	/* Requests dispatched, by weight: who may fill free slots. */
	u64			fill_vt;
	u32			fill_charge;	/* per request: cfq_fill_charge() */
	u64			nr_dispatched;	/* statistics (debugfs) */

	/* Think time and seek history, for the idle window. */
	u64			last_end;	/* ns of last completion */
	u64			ttime_mean;	/* ns, decaying mean */
	u16			ttime_samples;	/* saturating */
	u16			seek_samples;	/* up to 32 */
	sector_t		last_pos;	/* end of last request queued */
	u32			seek_history;	/* bit set: that request seeked */

	unsigned short		ioprio;		/* level 0..7 */
	enum cfq_class		ioclass;
	unsigned long		flags;
	pid_t			pid;
};

/* One per device x group: the group's conventional CFQ. */
struct cfq_data {
	struct cfq_meta_data	*cmd;
	refcount_t		ref;
	struct list_head	node;		/* cmd->groups */
	struct cgroup_subsys_state *css;	/* NULL for the root group */
	char			name[32];	/* cgroup name when created */

	/* Top layer: the hierarchy. */
	struct cfq_data		*parent;	/* NULL for the root group */
	struct cfq_entity	ent;		/* in the parent's tree */
	struct cfq_entity	self;		/* its own queues, in sched */
	struct cfq_sched	sched;		/* children and self compete */
	unsigned int		nr_children;	/* linked child groups */
	bool			linked;		/* on cmd->groups, group_xa */
	u64			clock;		/* ns served, past turns */
	u64			turn_start;	/* ns, when this turn began */
	u64			turn_service;	/* service, when it began */
	unsigned int		turn_sent;	/* requests dispatched since */
	u64			turn_budget;	/* cfq_turn_budget(), then */
	u64			busy_since;	/* ns, waiting with requests */
	u64			read_stamp;	/* ns, its last read's completion */
	struct cfq_stat		*stat;		/* cfq.stat, or NULL */
	struct rcu_head		rcu;		/* limit_depth reads under RCU */
	/* The tag gate (cfq_tag_gate()): sync requests here or in driver, */
	atomic_t		tags_held;
	atomic_t		tags_pending;	/* ... or waiting for a tag */
	unsigned int		tag_limit;	/* READ_ONCE: limit_depth */
	wait_queue_head_t	gate_wq;	/* tasks waiting to queue more */
	/* cfq_group_tag_limits(), under the lock. */
	u64			tag_sum;	/* weights holding tags below */
	unsigned int		tag_path;	/* the part of its path */
	bool			tag_holds;	/* holds tags, or a child does */

	/* Inner layer: per-task CFQ. */
	struct rb_root_cached	service_tree[CFQ_NR_CLASSES];
	unsigned int		busy[CFQ_NR_CLASSES];	/* queues with requests */
	unsigned int		busy_level[CFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct cfq_queue	*active_queue;
	u64			fill_min;	/* no queue joins below it */
	struct cfq_queue	*async_queue[2][IOPRIO_NR_LEVELS];
	struct cfq_queue	*async_idle_queue;
	struct list_head	queues;		/* every cfq_queue of the group */
	unsigned int		nr_queued;
	unsigned int		in_driver;
	unsigned int		sync_in_driver;
	u64			sync_done;	/* ns, last sync left driver */
	u64			think_mean;	/* ns, idle to next request */
	u16			think_samples;	/* saturating */

	/* Statistics (debugfs). */
	u64			service;	/* ns or I/Os charged */
	u64			dispatched;
	u64			turns;
};

/* One per device: the elevator instance. */
struct cfq_meta_data {
	spinlock_t		lock;		/* the one lock, see above */
	struct request_queue	*queue;

	struct list_head	dispatch;	/* at-head inserts, served first */
	dev_t			dev;		/* the disk, for its weights */
	struct cfq_data		*active;	/* group whose queues are served */
	struct list_head	groups;		/* every cfq_data, parents first */
	unsigned int		weight_seq;	/* cfq_cgroup_weight_seq() read */
	struct xarray		group_xa;	/* cfq_data by css id */
	unsigned int		nr_groups;
	/* Levels with two or more busy entities (cfq_group_among_equals). */
	unsigned int		nr_forks;
	/* Entities waiting with RT or BE work, at every level. */
	unsigned int		nr_waiting;
	u64			turn_seq;	/* turns begun: cfq_st_pick() */
	struct cfq_data		root;		/* the top of the hierarchy */
	u64			idle_start;	/* ns, when idling began */
	struct list_head	device_node;	/* cfq_devices, its own lock */

	unsigned int		nr_queued;	/* in the scheduler; has_work */
	bool			waiting;	/* has_work: wait for an event */
	/* dispatched at insert, taken in order */
	struct request		*ahead[CFQ_AHEAD_SLOTS];
	unsigned int		in_driver;
	unsigned int		sync_in_driver;
	unsigned int		nonidle_in_driver;
	u64			last_completion;
	u64			clock;		/* ns, latest time seen */
	/*
	 * The task whose insert set @clock, until the next dispatch: only
	 * compared with current, never followed.
	 */
	const struct task_struct *clock_task;
	u64			last_nonidle;	/* ns, last RT/BE activity */
	sector_t		last_position;	/* head position */
	/*
	 * Device time per completed request, by its size and whether it
	 * seeked (a decaying mean, ns, and a sample count; time mode only):
	 * does this device pay for seeks?  See cfq_seeks_free().
	 */
	u64			svc_mean[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS];
	u32			svc_samples[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS];
	struct cfq_media	media;		/* write caches */
	struct cfq_flush	*flush;		/* in flight, cfq_flush_lock too */
	struct cfq_data		*dirty_group;	/* wrote last into the cache */
	s64			flush_owed;	/* charged past time since a flush */
	u32			flush_writes;	/* priced writes since a flush */
	bool			flush_dirty;	/* written since the last flush */
	/* The served group's sync_done whose gap was filled (cfq_fill_gap). */
	u64			gap_filled;

	struct hrtimer		idle_timer;
	enum cfq_idle_kind	idling;
	u64			idle_deadline;	/* ns */

	u64			events[CFQ_NR_EVENTS];

	/* The queue a bio being merged would join (bio_merge context). */
	struct cfq_queue	*merge_cfqq;

	/* Read by limit_depth without the lock (READ_ONCE/WRITE_ONCE). */
	unsigned int		depth;		/* scheduler tags, whole device */
	unsigned int		hctx_depth;	/* ... of one hardware queue */
	unsigned int		nr_hw;		/* hardware queues with tags */
	unsigned int		keep_scale;	/* cfq_keep_ns(): the depth */
	atomic_long_t		gate_waits;	/* tasks that waited at a gate */
	u64			tag_stamp;	/* ns, cfq_group_tag_limits() */
	bool			gating;		/* READ_ONCE: limit_depth */
	u32			tun[CFQ_NR_TUNABLES];
	u64			tun_ns[CFQ_NR_TUNABLES];	/* ms ones, in ns */

	/* The device as the hooks last read it (cfq_device_read()). */
	bool			iops;		/* cfq_iops_mode() */
	unsigned int		hw_depth;	/* cfq_hw_depth() */
};

/* Per io_context x device: the task's sync queue on this device. */
struct cfq_io_cq {
	struct io_cq		icq;		/* must be first */
	struct cfq_queue	*sync_cfqq;
	/* sync_cfqq's queued requests; read by bio_merge without the lock */
	unsigned int		sync_queued;
	bool			exited;		/* exit_icq ran: attach nothing */
	/* A place reserved at its group's tag gate, a group reference. */
	struct cfq_data		*gate_cfqd;
};

/*
 * Cgroup adapter.  The scheduler asks; the subsystem answers.  Without
 * CONFIG_CFQ_CGROUP every task is in the root group.
 */
#ifdef CONFIG_CFQ_CGROUP
/* The weight of a group (NULL: the root group) on device @dev. */
unsigned int cfq_cgroup_weight(struct cgroup_subsys_state *css, dev_t dev);
/* Weight changes so far, any group (cfq-cgroup.c moves it). */
extern atomic_t cfq_weight_seq;

/*
 * The number of weight changes so far: read the weights again when it
 * moves.  Read it before the weights: a change it does not count yet
 * moves it again.  Inline: every dispatch reads it.
 */
static inline unsigned int cfq_cgroup_weight_seq(void)
{
	return atomic_read_acquire(&cfq_weight_seq);
}

/* A group's statistics on @dev, made on first use; NULL without memory. */
struct cfq_stat *cfq_cgroup_stat(struct cgroup_subsys_state *css, dev_t dev);
/* The group a bio's I/O belongs to, referenced (NULL: the root group). */
struct cgroup_subsys_state *cfq_cgroup_get_bio(struct bio *bio);
void cfq_cgroup_name(struct cgroup_subsys_state *css, char *buf, size_t len);
/* From the subsystem's css_offline: free the removed group's idle state. */
void cfq_sched_cgroup_offline(struct cgroup_subsys_state *css);

/*
 * The current task's group, referenced; NULL for the root group, which
 * needs no reference.  Inline: the elevator asks for every request.
 */
static inline struct cgroup_subsys_state *cfq_cgroup_get_current(void)
{
	struct cgroup_subsys_state *css;

	if (task_css_is_root(current, cfq_cgrp_id))
		return NULL;
	css = task_get_css(current, cfq_cgrp_id);
	if (!css->parent) {	/* moved to the root since the test above */
		css_put(css);
		return NULL;
	}
	return css;
}

/* The cfq controller is on the unified hierarchy (cgroup v2). */
static inline bool cfq_cgroup_on_dfl(void)
{
	return cgroup_subsys_on_dfl(cfq_cgrp_subsys);
}

/* The current task's group, unreferenced: under rcu_read_lock(). */
static inline struct cgroup_subsys_state *cfq_cgroup_current(void)
{
	struct cgroup_subsys_state *css = task_css(current, cfq_cgrp_id);

	return css->parent ? css : NULL;
}

static inline void cfq_cgroup_get(struct cgroup_subsys_state *css)
{
	if (css)
		css_get(css);
}

static inline void cfq_cgroup_put(struct cgroup_subsys_state *css)
{
	if (css)
		css_put(css);
}

static inline bool cfq_cgroup_is_root(struct cgroup_subsys_state *css)
{
	return !css->parent;
}

/* The parent group; NULL if it is the root group. */
static inline struct cgroup_subsys_state *
cfq_cgroup_parent(struct cgroup_subsys_state *css)
{
	return css->parent && css->parent->parent ? css->parent : NULL;
}

/* The cgroup's id among the cfq cgroups: unique while @css is held. */
static inline unsigned long cfq_cgroup_id(struct cgroup_subsys_state *css)
{
	return css->id;
}

/* Removed (rmdir) but still referenced. */
static inline bool cfq_cgroup_is_dying(struct cgroup_subsys_state *css)
{
	return css && css_is_dying(css);
}
#else
static inline unsigned int cfq_cgroup_weight(struct cgroup_subsys_state *css,
					     dev_t dev)
{
	return CFQ_WEIGHT_DEFAULT;
}

static inline unsigned int cfq_cgroup_weight_seq(void)
{
	return 0;
}

static inline struct cfq_stat *cfq_cgroup_stat(struct cgroup_subsys_state *css,
					       dev_t dev)
{
	return NULL;
}

static inline struct cgroup_subsys_state *cfq_cgroup_get_bio(struct bio *bio)
{
	return NULL;
}

static inline struct cgroup_subsys_state *cfq_cgroup_get_current(void)
{
	return NULL;
}

static inline bool cfq_cgroup_on_dfl(void)
{
	return false;
}

static inline struct cgroup_subsys_state *cfq_cgroup_current(void)
{
	return NULL;
}

static inline void cfq_cgroup_get(struct cgroup_subsys_state *css)
{
}

static inline void cfq_cgroup_put(struct cgroup_subsys_state *css)
{
}

static inline bool cfq_cgroup_is_root(struct cgroup_subsys_state *css)
{
	return true;
}

static inline struct cgroup_subsys_state *
cfq_cgroup_parent(struct cgroup_subsys_state *css)
{
	return NULL;
}

static inline unsigned long cfq_cgroup_id(struct cgroup_subsys_state *css)
{
	return 0;
}

static inline bool cfq_cgroup_is_dying(struct cgroup_subsys_state *css)
{
	return false;
}

static inline void cfq_cgroup_name(struct cgroup_subsys_state *css,
				   char *buf, size_t len)
{
	strscpy(buf, "/", len);
}
#endif

#endif /* _LINUX_CFQ_IOSCHED_H */
