/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two-layer CFQ: shared definitions of the cfq elevator and the cfq cgroup
 * subsystem.
 *
 * Layers
 * ------
 * struct cfq_meta_data (one per device, the elevator instance) keeps the
 * busy groups on a service tree ordered by virtual disk time and picks the
 * group to serve; groups whose only work is of the IDLE class wait on a
 * tree of their own.  struct cfq_data (one per device x cgroup) runs
 * conventional per-task CFQ over its struct cfq_queue objects (one sync
 * queue per io_context, async queues per I/O class and level).  The cgroup
 * side is an adapter the scheduler calls (cfq_cgroup_*() below); it calls
 * into the scheduler once, when a group is removed, so that every device
 * frees that group's state (cfq_sched_cgroup_offline()).
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
 * - has_work() reads cmd->nr_queued and cmd->waiting without the lock
 *   (READ_ONCE/WRITE_ONCE); a stale answer costs one dispatch attempt.
 *   bio_merge() reads cmd->nr_queued too; a stale zero costs a merge.
 * - The cgroup's ioprio is an atomic read; it may change at any time.  A
 *   cfq_data reads it into its weight when it is created and when its
 *   turn starts, so a change takes effect at the group's next turn.
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
 *   the cgroup's offline if it has no I/O left, else when its last request
 *   leaves the driver; or at elevator exit) and one per cfq_queue.  No
 *   group is created for a cgroup that is already being removed: its
 *   requests go to the root group.  The root group is embedded in
 *   cfq_meta_data and lives as long as it.
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

/* cfq.ioprio of a group: 0 (highest) .. 7, default 4; weight = 8 - ioprio. */
#define CFQ_GROUP_IOPRIO_DEFAULT	4
#define CFQ_GROUP_WEIGHT_MAX		IOPRIO_NR_LEVELS
/* The weight of the default priority: the unit of virtual disk time. */
#define CFQ_GROUP_WEIGHT_DEFAULT	(CFQ_GROUP_WEIGHT_MAX - \
					 CFQ_GROUP_IOPRIO_DEFAULT)

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
	CFQ_NR_TUNABLES,
};

/* A dispatched request, by its distance from the previous one. */
enum cfq_seek_kind {
	CFQ_SEEK_NEAR,
	CFQ_SEEK_FAR,
	CFQ_NR_SEEK_KINDS,
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
};

struct cfq_data;
struct cfq_io_cq;

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

	/* Top layer. */
	unsigned int		weight;		/* 8 - cfq.ioprio, see below */
	/*
	 * While busy and not the active group: on cmd->group_tree, or on
	 * cmd->idle_tree if all its queued work is of the IDLE class.
	 */
	struct rb_node		rb_node;
	struct rb_root_cached	*tree;		/* the tree it is on, or NULL */
	bool			linked;		/* on cmd->groups, group_xa */
	u64			vdisktime;
	u64			clock;		/* ns served, past turns */
	u64			turn_start;	/* ns, when this turn began */

	/* Inner layer: per-task CFQ. */
	struct rb_root_cached	service_tree[CFQ_NR_CLASSES];
	unsigned int		busy[CFQ_NR_CLASSES];	/* queues with requests */
	unsigned int		busy_level[CFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct cfq_queue	*active_queue;
	struct cfq_queue	*async_queue[2][IOPRIO_NR_LEVELS];
	struct cfq_queue	*async_idle_queue;
	struct list_head	queues;		/* every cfq_queue of the group */
	unsigned int		nr_queued;
	unsigned int		in_driver;
	unsigned int		sync_in_driver;

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
	struct rb_root_cached	group_tree;	/* waiting groups by vdisktime */
	struct rb_root_cached	idle_tree;	/* ... with IDLE-class work only */
	u64			min_vdisktime;
	struct cfq_data		*active;	/* group being served */
	struct list_head	groups;		/* every cfq_data */
	struct xarray		group_xa;	/* cfq_data by css id */
	unsigned int		nr_groups;
	/* Groups with requests queued: in all, by weight, weights present. */
	unsigned int		nr_busy_groups;
	unsigned int		busy_weight[CFQ_GROUP_WEIGHT_MAX + 1];
	unsigned int		busy_weight_mask;	/* BIT(weight) */
	struct cfq_data		root;
	struct list_head	device_node;	/* cfq_devices, its own lock */

	unsigned int		nr_queued;	/* in the scheduler; has_work */
	bool			waiting;	/* has_work: wait for an event */
	unsigned int		in_driver;
	unsigned int		sync_in_driver;
	unsigned int		nonidle_in_driver;
	u64			last_completion;
	u64			clock;		/* ns, latest time seen */
	u64			last_nonidle;	/* ns, last RT/BE activity */
	sector_t		last_position;	/* head position */
	/*
	 * Device time per completed request, by whether it seeked (a
	 * decaying mean, ns, and a sample count; time mode only): does this
	 * device pay for seeks?  See cfq_seeks_free().
	 */
	u64			svc_mean[CFQ_NR_SEEK_KINDS];
	u32			svc_samples[CFQ_NR_SEEK_KINDS];

	struct hrtimer		idle_timer;
	enum cfq_idle_kind	idling;
	u64			idle_deadline;	/* ns */

	u64			events[CFQ_NR_EVENTS];

	/* The queue a bio being merged would join (bio_merge context). */
	struct cfq_queue	*merge_cfqq;

	/* Read by limit_depth without the lock (READ_ONCE/WRITE_ONCE). */
	unsigned int		depth;		/* scheduler tags, whole device */
	unsigned int		hctx_depth;	/* ... of one hardware queue */
	unsigned int		max_weight;	/* heaviest busy group, or 0 */
	unsigned int		min_weight;	/* lightest busy group, or 0 */
	u32			tun[CFQ_NR_TUNABLES];
};

/* Per io_context x device: the task's sync queue on this device. */
struct cfq_io_cq {
	struct io_cq		icq;		/* must be first */
	struct cfq_queue	*sync_cfqq;
	/* sync_cfqq's queued requests; read by bio_merge without the lock */
	unsigned int		sync_queued;
	bool			exited;		/* exit_icq ran: attach nothing */
};

/*
 * Cgroup adapter.  The scheduler asks; the subsystem answers.  Without
 * CONFIG_CFQ_CGROUP every task is in the root group.
 */
#ifdef CONFIG_CFQ_CGROUP
/* cfq.ioprio of a group; NULL is the root group. */
unsigned int cfq_cgroup_ioprio(struct cgroup_subsys_state *css);
/* cfq.ioprio of the current task's group, without taking a reference. */
unsigned int cfq_cgroup_current_ioprio(void);
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
static inline struct cgroup_subsys_state *cfq_cgroup_get_current(void)
{
	return NULL;
}

static inline void cfq_cgroup_get(struct cgroup_subsys_state *css)
{
}

static inline void cfq_cgroup_put(struct cgroup_subsys_state *css)
{
}

static inline unsigned int cfq_cgroup_ioprio(struct cgroup_subsys_state *css)
{
	return CFQ_GROUP_IOPRIO_DEFAULT;
}

static inline unsigned int cfq_cgroup_current_ioprio(void)
{
	return CFQ_GROUP_IOPRIO_DEFAULT;
}

static inline bool cfq_cgroup_is_root(struct cgroup_subsys_state *css)
{
	return true;
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
