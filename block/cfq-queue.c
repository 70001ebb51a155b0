// SPDX-License-Identifier: GPL-2.0
/*
 * cfq: per-task CFQ inside one group (one cfq_data).
 *
 * Each group keeps one round robin per I/O class of its busy queues; the
 * head of the highest non-empty class is served for a slice of
 * base + base/5 * (4 - level), on the group's clock.  The active queue
 * keeps the device while its slice lasts and it has requests, or, if it
 * reads sequentially and thinks briefly, while the device idles up to
 * slice_idle for its next request.  Requests leave a queue in sector
 * order, with bounded backward seeks, unless the oldest has waited past
 * its FIFO deadline.
 *
 * Not built on its own: cfq-iosched.c includes this file.
 */
#include <linux/math64.h>
#include <linux/slab.h>

#include "cfq.h"

/* ---------------------------------------------------------------------
 * Pure rules (KUnit: cfq-iosched-test.c)
 */

/* Slice of a queue: base + base/5 * (4 - level); IDLE class as level 7. */
static u64 cfq_prio_slice(u64 base, enum cfq_class ioclass,
			  unsigned int level)
{
	if (ioclass == CFQ_CLASS_IDLE)
		level = IOPRIO_NR_LEVELS - 1;
	return base + div_u64(base, CFQ_SLICE_SCALE) * 4 -
	       div_u64(base, CFQ_SLICE_SCALE) * level;
}

/*
 * low_latency: with @busy queues of @base slices in the round, shrink
 * @slice so the round fits @target, keeping ratios, down to @floor.
 */
static u64 cfq_scale_slice(u64 slice, unsigned int busy, u64 base,
			   u64 target, u64 floor)
{
	u64 expect = (u64)busy * base;

	if (expect <= target)
		return slice;
	return max(mul_u64_u64_div_u64(slice, target, expect),
		   min(slice, floor));
}

/*
 * Class and level of a request.  Without an explicit class, the task's
 * nice value decides, as the kernel's ioprio rules do: best effort,
 * level (nice + 20) / 5.
 */
static void cfq_rq_prio(u16 ioprio, int nice, enum cfq_class *ioclass,
			unsigned int *level)
{
	static const enum cfq_class cls[IOPRIO_CLASS_INVALID] = {
		[IOPRIO_CLASS_NONE] = CFQ_CLASS_BE,
		[IOPRIO_CLASS_RT] = CFQ_CLASS_RT,
		[IOPRIO_CLASS_BE] = CFQ_CLASS_BE,
		[IOPRIO_CLASS_IDLE] = CFQ_CLASS_IDLE,
	};
	unsigned int c = IOPRIO_PRIO_CLASS(ioprio);

	if (c == IOPRIO_CLASS_NONE || c > IOPRIO_CLASS_IDLE) {
		*ioclass = CFQ_CLASS_BE;
		*level = clamp((nice + 20) / 5, 0, IOPRIO_NR_LEVELS - 1);
		return;
	}
	*ioclass = cls[c];
	*level = min_t(unsigned int, IOPRIO_PRIO_LEVEL(ioprio),
		       IOPRIO_NR_LEVELS - 1);
}

/* Has a request with FIFO deadline @deadline expired at @now? */
static bool cfq_fifo_expired(u64 now, u64 deadline)
{
	return (s64)(now - deadline) >= 0;
}

/*
 * Cost of moving the head from @last to @s: the distance forward, or
 * @penalty times the distance back.  False if @s lies further back than
 * @back_max.
 */
static bool cfq_seek_cost(sector_t last, sector_t s, sector_t back_max,
			  unsigned int penalty, sector_t *cost)
{
	if (s >= last) {
		*cost = s - last;
		return true;
	}
	*cost = (last - s) * penalty;
	return s + back_max >= last;
}

/*
 * Which of two requests to serve next from head position @last: a sync
 * one before an async one, else the nearer one, where a backward seek of
 * at most @back_max sectors counts @penalty times its distance and a
 * longer one is taken only if both are.  Returns true for the first.
 */
static bool cfq_prefer_first(sector_t last, sector_t s1, bool sync1,
			     sector_t s2, bool sync2, sector_t back_max,
			     unsigned int penalty)
{
	sector_t d1, d2;
	bool far1, far2;

	if (sync1 != sync2)
		return sync1;

	far1 = !cfq_seek_cost(last, s1, back_max, penalty, &d1);
	far2 = !cfq_seek_cost(last, s2, back_max, penalty, &d2);
	if (far1 != far2)
		return !far1;
	if (far1)	/* both behind the window: the one further back */
		return s1 <= s2;
	if (d1 != d2)
		return d1 < d2;
	return s1 >= s2;
}

/* Seeky: more than a quarter of the last (up to 32) requests seeked. */
static __always_inline bool cfq_seeky(u32 history, unsigned int samples)
{
	u32 seen = samples >= 32 ? history : history & (BIT(samples) - 1);

	return hweight32(seen) * 4 > min(samples, 32U);
}

/* Decaying mean of think time, in ns: 7/8 old + 1/8 new. */
static u64 cfq_ttime_update(u64 mean, unsigned int samples, u64 sample)
{
	return samples ? div_u64(mean * 7 + sample, 8) : sample;
}

static void cfq_queue_get(struct cfq_queue *cfqq)
{
	refcount_inc(&cfqq->ref);
}

static void cfq_queue_put(struct cfq_meta_data *cmd, struct cfq_queue *cfqq)
{
	struct cfq_data *cfqd = cfqq->cfqd;

	lockdep_assert_held(&cmd->lock);

	if (!refcount_dec_and_test(&cfqq->ref))
		return;
	WARN_ON_ONCE(test_bit(CFQQ_ON_RR, &cfqq->flags) || cfqq->queued ||
		     cfqq->dispatched || cfqd->active_queue == cfqq);
	list_del(&cfqq->group_node);
	kmem_cache_free(cfq_pool, cfqq);
	cfq_group_put(cmd, cfqd);
}

static struct cfq_queue *cfq_queue_alloc(struct cfq_meta_data *cmd,
					 struct cfq_data *cfqd, bool sync,
					 enum cfq_class ioclass,
					 unsigned int level, pid_t pid)
{
	struct cfq_queue *cfqq;

	lockdep_assert_held(&cmd->lock);

	cfqq = kmem_cache_alloc_node(cfq_pool, GFP_NOWAIT | __GFP_ZERO,
				     cmd->queue->node);
	if (!cfqq)
		return NULL;
	refcount_set(&cfqq->ref, 1);
	cfqq->cfqd = cfqd;
	cfq_group_get(cfqd);
	list_add(&cfqq->group_node, &cfqd->queues);
	RB_CLEAR_NODE(&cfqq->rb_node);
	cfqq->sort_list = RB_ROOT;
	INIT_LIST_HEAD(&cfqq->fifo);
	cfqq->ioclass = ioclass;
	cfqq->ioprio = level;
	cfqq->fill_charge = cfq_fill_charge(cfqq);
	cfqq->pid = pid;
	if (sync)
		__set_bit(CFQQ_SYNC, &cfqq->flags);
	return cfqq;
}

static struct cfq_queue **cfq_async_slot(struct cfq_data *cfqd,
					 enum cfq_class ioclass,
					 unsigned int level)
{
	if (ioclass == CFQ_CLASS_IDLE)
		return &cfqd->async_idle_queue;
	return &cfqd->async_queue[ioclass][level];
}

/* ---------------------------------------------------------------------
 * Inner layer: the round robin of a group's queues
 */

/*
 * @cfqq got its first request (@busy) or lost its last one.  The caller
 * tells the group layer (cfq_group_changed()) once the group's counts are
 * all up to date.
 */
static void cfq_queue_busy(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			   bool busy)
{
	int d = busy ? 1 : -1;

	cfqd->busy[cfqq->ioclass] += d;
	cfqd->busy_level[cfqq->ioclass][cfqq->ioprio] += d;
}

static bool cfq_rr_less(struct rb_node *a, const struct rb_node *b)
{
	return cfq_vtime_before(rb_entry(a, struct cfq_queue, rb_node)->rb_key,
				rb_entry(b, struct cfq_queue, rb_node)->rb_key);
}

/* Queue @cfqq at the tail of its class's round robin. */
static void cfq_rr_add(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
		       u64 now)
{
	struct cfq_data *cfqd = cfqq->cfqd;

	lockdep_assert_held(&cmd->lock);

	if (test_bit(CFQQ_ON_RR, &cfqq->flags) || !cfqq->queued ||
	    cfqd->active_queue == cfqq)
		return;
	cfqq->rb_key = now;
	rb_add_cached(&cfqq->rb_node, &cfqd->service_tree[cfqq->ioclass],
		      cfq_rr_less);
	__set_bit(CFQQ_ON_RR, &cfqq->flags);
}

static void cfq_rr_del(struct cfq_meta_data *cmd, struct cfq_queue *cfqq)
{
	lockdep_assert_held(&cmd->lock);

	if (!__test_and_clear_bit(CFQQ_ON_RR, &cfqq->flags))
		return;
	rb_erase_cached(&cfqq->rb_node,
			&cfqq->cfqd->service_tree[cfqq->ioclass]);
	RB_CLEAR_NODE(&cfqq->rb_node);
}

/* The IDLE class runs only once the device has been otherwise idle. */
static bool cfq_idle_class_allowed(struct cfq_meta_data *cmd, u64 now)
{
	return !cmd->nonidle_in_driver &&
	       now - cmd->last_nonidle >= CFQ_IDLE_DELAY_NS;
}

/* A queue known to seek: its requests are not worth idling for. */
static bool cfq_queue_seeky(struct cfq_queue *cfqq)
{
	return cfqq->seek_samples >= CFQ_IDLE_MIN_SAMPLES &&
	       cfq_seeky(cfqq->seek_history, cfqq->seek_samples);
}

static sector_t cfq_head_distance(struct cfq_meta_data *cmd,
				  struct cfq_queue *cfqq)
{
	sector_t pos = blk_rq_pos(cfqq->next_rq), last = cmd->last_position;

	return pos > last ? pos - last : last - pos;
}

/*
 * The queue to serve after @n, the head of a round robin.  On a disk
 * (time mode) seeky queues take turns with a request or two each, and in
 * turn order every one of them seeks across the group's whole area.
 * Among the seeky queues whose turn came within a sync slice of the
 * head's (up to CFQ_NEAR_SCAN of them), take the one whose next request
 * lies nearest the head.  The head waits at most about a slice: a queue
 * served meanwhile goes back to the tail with a later turn, outside the
 * window.
 */
static struct cfq_queue *cfq_rr_nearest(struct cfq_meta_data *cmd,
					struct rb_node *n)
{
	struct cfq_queue *first = rb_entry(n, struct cfq_queue, rb_node);
	struct cfq_queue *best = first, *cfqq;
	u64 limit = first->rb_key + 2 * cfq_tun_ns(cmd, CFQ_SLICE_SYNC);
	sector_t d, best_d;
	int i;

	if (cfq_iops_mode(cmd) || !cfq_queue_seeky(first))
		return first;
	best_d = cfq_head_distance(cmd, first);
	for (i = 1, n = rb_next(n); n && i < CFQ_NEAR_SCAN;
	     i++, n = rb_next(n)) {
		cfqq = rb_entry(n, struct cfq_queue, rb_node);
		if (cfq_vtime_before(limit, cfqq->rb_key))
			break;
		if (!cfq_queue_seeky(cfqq))
			continue;
		d = cfq_head_distance(cmd, cfqq);
		if (d < best_d) {
			best = cfqq;
			best_d = d;
		}
	}
	return best;
}

static struct cfq_queue *cfq_rr_first(struct cfq_meta_data *cmd,
				      struct cfq_data *cfqd, u64 now)
{
	struct rb_node *n;
	int c;

	lockdep_assert_held(&cmd->lock);

	for (c = 0; c < CFQ_NR_CLASSES; c++) {
		if (c == CFQ_CLASS_IDLE && !cfq_idle_class_allowed(cmd, now))
			break;
		n = rb_first_cached(&cfqd->service_tree[c]);
		if (n)
			return cfq_rr_nearest(cmd, n);
	}
	return NULL;
}

/* A request's class or level changed: move its queue if it is queued. */
static void cfq_queue_set_prio(struct cfq_meta_data *cmd,
			       struct cfq_queue *cfqq, enum cfq_class ioclass,
			       unsigned int level, u64 now)
{
	struct cfq_data *cfqd = cfqq->cfqd;
	bool on_rr;

	lockdep_assert_held(&cmd->lock);

	if (cfqq->ioclass == ioclass && cfqq->ioprio == level)
		return;
	cfq_log_cfqq(cmd, cfqq, "prio changed to %c%u", "RBI"[ioclass], level);
	on_rr = test_bit(CFQQ_ON_RR, &cfqq->flags);
	if (on_rr)
		cfq_rr_del(cmd, cfqq);
	if (cfqq->queued)
		cfq_queue_busy(cfqd, cfqq, false);
	cfqq->ioclass = ioclass;
	cfqq->ioprio = level;
	cfqq->fill_charge = cfq_fill_charge(cfqq);
	if (cfqq->queued) {
		cfq_queue_busy(cfqd, cfqq, true);
		cfq_group_changed(cmd, cfqd, false);	/* busy throughout */
	}
	if (on_rr)
		cfq_rr_add(cmd, cfqq, now);
}

/*
 * The base the sync slices of all levels are scaled from: slice_sync, and
 * on a disk (cfq_disk_far()) of depth 1 at least CFQ_SLICE_SEEKS far
 * requests, up to twice slice_sync.  Each switch between queues there is
 * a seek away from one task's data and back: the longer slices of
 * sequential readers of large requests keep the disk streaming, and the
 * levels keep their ratios.  Where cfq_disk_far() is 0 the clamp leaves
 * slice_sync.
 */
static u64 cfq_sync_base(struct cfq_meta_data *cmd)
{
	u64 base = cfq_tun_ns(cmd, CFQ_SLICE_SYNC);

	if (cfq_hw_depth(cmd) != 1)
		return base;
	return clamp_t(u64, CFQ_SLICE_SEEKS * cfq_disk_far(cmd), base,
		       2 * base);
}

/*
 * The shortest slice low_latency may leave: two idle windows, and on a
 * device where seeks cost, CFQ_LOW_SLICE_SEEKS of the longest far requests
 * measured there (cfq_far_mean()): a slice worth only a few seeks is
 * mostly spent getting to the data.
 */
static u64 cfq_low_slice(struct cfq_meta_data *cmd)
{
	return max(2 * cfq_tun_ns(cmd, CFQ_SLICE_IDLE),
		   CFQ_LOW_SLICE_SEEKS * cfq_far_mean(cmd));
}

static u64 cfq_queue_slice(struct cfq_meta_data *cmd, struct cfq_queue *cfqq)
{
	bool sync = test_bit(CFQQ_SYNC, &cfqq->flags);
	u64 base = sync ? cfq_sync_base(cmd) : cfq_tun_ns(cmd, CFQ_SLICE_ASYNC);
	u64 slice = cfq_prio_slice(base, cfqq->ioclass, cfqq->ioprio);

	if (cmd->tun[CFQ_LOW_LATENCY] && sync)
		slice = cfq_scale_slice(slice,
					cfqq->cfqd->busy[cfqq->ioclass], base,
					cfq_tun_ns(cmd, CFQ_TARGET_LATENCY),
					cfq_low_slice(cmd));
	return slice;
}

/* Async requests a queue may dispatch per slice: 2 * rq * (8 - level). */
static unsigned int cfq_async_max_rq(struct cfq_meta_data *cmd,
				     struct cfq_queue *cfqq)
{
	return 2 * cmd->tun[CFQ_SLICE_ASYNC_RQ] *
	       (IOPRIO_NR_LEVELS - cfqq->ioprio);
}

/* ---------------------------------------------------------------------
 * Requests in a queue
 */

static struct request *cfq_next_after(struct cfq_meta_data *cmd,
				      struct cfq_queue *cfqq,
				      struct request *rq)
{
	struct rb_node *next = rb_next(&rq->rb_node);
	struct rb_node *prev = rb_prev(&rq->rb_node);
	struct request *a, *b;

	if (!next)
		next = rb_first(&cfqq->sort_list);
	if (next == &rq->rb_node)
		next = NULL;
	if (!prev || prev == next)
		prev = NULL;
	a = next ? rb_entry_rq(next) : NULL;
	b = prev ? rb_entry_rq(prev) : NULL;
	if (!a || !b)
		return a ?: b;
	return cfq_prefer_first(cmd->last_position, blk_rq_pos(a),
				rq_is_sync(a), blk_rq_pos(b), rq_is_sync(b),
				(sector_t)cmd->tun[CFQ_BACK_SEEK_MAX] * 2,
				cmd->tun[CFQ_BACK_SEEK_PENALTY]) ? a : b;
}

static __always_inline void cfq_update_next_rq(struct cfq_meta_data *cmd,
					       struct cfq_queue *cfqq,
					       struct request *rq)
{
	struct request *cur = cfqq->next_rq;

	if (!cur || cfq_prefer_first(cmd->last_position, blk_rq_pos(rq),
				     rq_is_sync(rq), blk_rq_pos(cur),
				     rq_is_sync(cur),
				     (sector_t)cmd->tun[CFQ_BACK_SEEK_MAX] * 2,
				     cmd->tun[CFQ_BACK_SEEK_PENALTY]))
		cfqq->next_rq = rq;
}

/*
 * A disk that holds one command at a time cannot reorder anything: the
 * next request of a seeky queue, somewhere in the area its task reads, is
 * still nearer the head than the area of another task.  There a seeky
 * queue is idled for like any other, as CFQ did on disks without command
 * queueing.
 */
static inline bool cfq_idles_seeky(struct cfq_meta_data *cmd)
{
	return cfq_hw_depth(cmd) == 1 && cfq_disk_far(cmd);
}

/* Think time and seek distance: decide whether idling for @cfqq pays. */
static void cfq_update_idle_window(struct cfq_meta_data *cmd,
				   struct cfq_queue *cfqq, struct request *rq,
				   u64 now)
{
	sector_t pos = blk_rq_pos(rq), dist;
	bool idle;

	if (!test_bit(CFQQ_SYNC, &cfqq->flags))
		return;
	if (!cfqq->queued && !cfqq->dispatched && cfqq->last_end) {
		cfqq->ttime_mean = cfq_ttime_update(cfqq->ttime_mean,
						    cfqq->ttime_samples,
						    now - cfqq->last_end);
		if (cfqq->ttime_samples < U16_MAX)
			cfqq->ttime_samples++;
	}
	if (cfqq->last_pos) {
		dist = pos > cfqq->last_pos ? pos - cfqq->last_pos :
					      cfqq->last_pos - pos;
		cfqq->seek_history = cfqq->seek_history << 1 |
				     (dist > CFQ_SEEK_THR);
		if (cfqq->seek_samples < 32)
			cfqq->seek_samples++;
	}
	cfqq->last_pos = pos + blk_rq_sectors(rq);
	/* Idle only on evidence: a new queue is not idled for. */
	idle = cmd->tun[CFQ_SLICE_IDLE] &&
	       cfqq->seek_samples >= CFQ_IDLE_MIN_SAMPLES &&
	       cfqq->ttime_samples >= CFQ_IDLE_MIN_SAMPLES &&
	       (!cfq_seeky(cfqq->seek_history, cfqq->seek_samples) ||
		cfq_idles_seeky(cmd)) &&
	       cfqq->ttime_mean <= cfq_tun_ns(cmd, CFQ_SLICE_IDLE);
	if (idle != test_bit(CFQQ_IDLE_WINDOW, &cfqq->flags)) {
		cfq_log_cfqq(cmd, cfqq, "idle window %d", idle);
		__assign_bit(CFQQ_IDLE_WINDOW, &cfqq->flags, idle);
	}
}

static void cfq_add_rq(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
		       struct request *rq, u64 now)
{
	struct cfq_data *cfqd = cfqq->cfqd;
	struct request_queue *q = cmd->queue;
	bool sync = rq_is_sync(rq);

	lockdep_assert_held(&cmd->lock);

	cfq_update_idle_window(cmd, cfqq, rq, now);
	elv_rb_add(&cfqq->sort_list, rq);
	rq->fifo_time = now + cfq_tun_ns(cmd, sync ? CFQ_FIFO_EXPIRE_SYNC :
						     CFQ_FIFO_EXPIRE_ASYNC);
	list_add_tail(&rq->queuelist, &cfqq->fifo);
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	cfq_update_next_rq(cmd, cfqq, rq);

	if (!cfqq->queued)
		cfq_fill_join(cmd, cfqq, now);
	if (!cfqq->queued++)
		cfq_queue_busy(cfqd, cfqq, true);
	if (cfqq->cic)
		WRITE_ONCE(cfqq->cic->sync_queued, cfqq->queued);
	/* The group's think time: from its last sync completion, idle. */
	if (sync && !cfqd->nr_queued && !cfqd->in_driver && cfqd->sync_done) {
		u64 gap = min(now - cfqd->sync_done, 2 * CFQ_SPARE_THINK_NS);

		cfqd->think_mean = cfq_ttime_update(cfqd->think_mean,
						    cfqd->think_samples, gap);
		if (cfqd->think_samples < U16_MAX)
			cfqd->think_samples++;
	}
	if (!cfqd->nr_queued++ && cmd->active != cfqd)
		cfqd->busy_since = now;		/* waits for a turn from now */
	if (cfq_group_self_changed(cfqd))
		cfq_group_changed(cmd, cfqd,
				  cfq_group_may_keep(cmd, cfqd, now));
	WRITE_ONCE(cmd->nr_queued, cmd->nr_queued + 1);
	if (cfqd->active_queue != cfqq)
		cfq_rr_add(cmd, cfqq, now);
}

static __always_inline void cfq_remove_rq(struct cfq_meta_data *cmd,
					  struct request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	struct cfq_data *cfqd = cfqq->cfqd;
	struct request_queue *q = cmd->queue;

	lockdep_assert_held(&cmd->lock);

	list_del_init(&rq->queuelist);
	if (cfqq->next_rq == rq)
		cfqq->next_rq = cfqq->queued > 1 ?
				cfq_next_after(cmd, cfqq, rq) : NULL;
	elv_rb_del(&cfqq->sort_list, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;

	if (cfqq->cic)
		WRITE_ONCE(cfqq->cic->sync_queued, cfqq->queued - 1);
	if (!--cfqq->queued) {
		cfq_queue_busy(cfqd, cfqq, false);
		cfq_rr_del(cmd, cfqq);
	}
	if (!--cfqd->nr_queued)
		cfqd->busy_since = 0;
	/*
	 * The served group that runs dry stays busy up its path until its
	 * turn ends (cfq_group_expire()): its next request usually comes
	 * before that, and then nothing up the path changes.
	 */
	if (cfqd->nr_queued || cmd->active != cfqd)
		cfq_group_changed(cmd, cfqd, false);	/* busy stays or goes */
	WRITE_ONCE(cmd->nr_queued, cmd->nr_queued - 1);
}

/* ---------------------------------------------------------------------
 * Idling: one hrtimer per device, for whatever the device waits for
 */

static void cfq_idle_arm(struct cfq_meta_data *cmd, enum cfq_idle_kind kind,
			 u64 now, u64 delay)
{
	lockdep_assert_held(&cmd->lock);

	cmd->events[CFQ_EV_IDLE_ARM]++;
	cmd->idling = kind;
	cmd->idle_start = now;
	cmd->idle_deadline = now + delay;
	hrtimer_start(&cmd->idle_timer, ns_to_ktime(delay), HRTIMER_MODE_REL);
	cfq_log(cmd, "idle %d for %llu us", kind, div_u64(delay, 1000));
}

/*
 * The device stops idling at @now: the time it was kept idle for the
 * active group's queue or for the group goes to the group's cfq.stat.
 */
static void cfq_idle_end(struct cfq_meta_data *cmd, u64 now)
{
	struct cfq_data *cfqd = cmd->active;

	if ((cmd->idling == CFQ_IDLE_QUEUE || cmd->idling == CFQ_IDLE_GROUP) &&
	    cfqd && cfqd->stat && now > cmd->idle_start)
		cfqd->stat->idle_ns += now - cmd->idle_start;
	cmd->idling = CFQ_IDLE_NONE;
}

/*
 * Stop idling.  The timer callback may already be waiting for the lock;
 * it finds cmd->idling cleared (or a later deadline) and does nothing.
 */
static void cfq_idle_cancel(struct cfq_meta_data *cmd, u64 now)
{
	lockdep_assert_held(&cmd->lock);

	if (cmd->idling == CFQ_IDLE_NONE)
		return;
	cfq_idle_end(cmd, now);
	hrtimer_try_to_cancel(&cmd->idle_timer);
}

/* End the active queue's slice; it rejoins the round robin if it has work. */
static void cfq_slice_expired(struct cfq_meta_data *cmd,
			      struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	lockdep_assert_held(&cmd->lock);

	if (!cfqq)
		return;
	cmd->events[CFQ_EV_SLICE_EXPIRE]++;
	if (cmd->active == cfqd && cmd->idling == CFQ_IDLE_QUEUE)
		cfq_idle_cancel(cmd, now);
	cfq_log_cfqq(cmd, cfqq, "slice expired, %u dispatched",
		     cfqq->slice_dispatch);
	__clear_bit(CFQQ_SLICE_STARTED, &cfqq->flags);
	__clear_bit(CFQQ_FIFO_SERVED, &cfqq->flags);
	cfqq->slice_dispatch = 0;
	cfqd->active_queue = NULL;
	cfq_rr_add(cmd, cfqq, now);
	cfq_queue_put(cmd, cfqq);
}

static void cfq_slice_activate(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	lockdep_assert_held(&cmd->lock);

	cfq_rr_del(cmd, cfqq);
	cfq_queue_get(cfqq);
	cfqd->active_queue = cfqq;
	cfqq->slice_dispatch = 0;
	cfq_log_cfqq(cmd, cfqq, "slice activated");
}

/* Is every other busy queue of the group at @cfqq's class and level? */
static bool cfq_queue_among_equals(struct cfq_data *cfqd,
				   struct cfq_queue *cfqq)
{
	unsigned int busy = 0;
	int c;

	for (c = 0; c < CFQ_NR_CLASSES; c++)
		busy += cfqd->busy[c];
	return busy == cfqd->busy_level[cfqq->ioclass][cfqq->ioprio];
}

/*
 * Is the active queue worth keeping the device idle for?  Only a sync
 * queue whose task still owns it (cfqq->cic): a task that exited or moved
 * to another group sends nothing more here.
 */
static __always_inline bool cfq_should_idle(struct cfq_meta_data *cmd,
					    struct cfq_queue *cfqq)
{
	return test_bit(CFQQ_SYNC, &cfqq->flags) && cfqq->cic &&
	       test_bit(CFQQ_IDLE_WINDOW, &cfqq->flags) &&
	       cfqq->ioclass != CFQ_CLASS_IDLE && cmd->tun[CFQ_SLICE_IDLE] &&
	       !cfq_tags_full(cmd) &&
	       !(cfq_equal_noidle(cmd) &&
		 cfq_queue_among_equals(cfqq->cfqd, cfqq));
}

/*
 * May @cfqq put another request in the driver now, holding at most @limit
 * there (the IDLE class one, and none while other classes have requests
 * in it)?  On a disk that queues commands (NCQ), a queue worth idling for
 * starts its slice once the requests of those served before it have left
 * the driver: the disk would otherwise take them in between its first
 * sequential requests, and each would cost the head a trip away and back.
 */
static __always_inline bool cfq_may_dispatch_max(struct cfq_meta_data *cmd,
						 struct cfq_queue *cfqq,
						 unsigned int limit)
{
	if (cfqq->ioclass == CFQ_CLASS_IDLE) {
		if (cmd->nonidle_in_driver)
			return false;
		limit = 1;
	}
	if (cfqq->dispatched >= limit)
		return false;
	if (!test_bit(CFQQ_SLICE_STARTED, &cfqq->flags) &&
	    cmd->in_driver > cfqq->dispatched && !cfq_iops_mode(cmd) &&
	    !cfq_seeks_free(cmd->svc_mean, cmd->svc_samples) &&
	    cfq_should_idle(cmd, cfqq))
		return false;
	/* Async waits for sync requests in flight, not the other way round. */
	return test_bit(CFQQ_SYNC, &cfqq->flags) || !cmd->sync_in_driver;
}

/* The served queue: at most quantum requests in the driver. */
static __always_inline bool cfq_may_dispatch(struct cfq_meta_data *cmd,
					     struct cfq_queue *cfqq)
{
	return cfq_may_dispatch_max(cmd, cfqq, cmd->tun[CFQ_QUANTUM]);
}

/*
 * May @cfqq, not its group's served queue, take a free slot (cfq_fill(),
 * cfq_fill_gap())?  In I/O-count mode a sync queue is held there by what
 * its share allows (its fill_vt, or its group's key and slots) and may
 * hold all of the device's slots but the served queue's quantum: the
 * quantum leaves room for others beside the served queue, and a filled
 * queue is one of those others.  A 1 MiB read is nine requests on
 * null_blk: a level-0 reader filled during a level-7 queue's slice
 * would otherwise send eight and wait for a completion to send the
 * ninth.  Elsewhere the quantum holds it as it holds the served queue.
 */
static bool cfq_may_fill(struct cfq_meta_data *cmd, struct cfq_queue *cfqq)
{
	unsigned int quantum = cmd->tun[CFQ_QUANTUM];
	unsigned int depth = cfq_hw_depth(cmd);
	unsigned int limit = quantum;

	if (cfq_iops_mode(cmd) && test_bit(CFQQ_SYNC, &cfqq->flags) &&
	    depth > 2 * quantum)
		limit = depth - quantum;
	return cfq_may_dispatch_max(cmd, cfqq, limit);
}

/* A higher class has work in the group: stop serving @cfqq. */
static bool cfq_preempted(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	int c;

	for (c = 0; c < cfqq->ioclass; c++)
		if (cfqd->busy[c])
			return true;
	return false;
}

/*
 * How long to idle for the active queue's next request, at @gclock (its
 * group's clock): in time mode the idle window, cut at the slice's end,
 * or 0 where the slice has no more left than the queue's mean think time,
 * as old CFQ judged it.  Judged by the whole window instead, a sequential
 * reader that thinks for microseconds lost the last window of every
 * slice: three such readers at BE 0/4/7 on a 1 ms device read
 * 57.4/31.4/11.2 % for the slices' 56.2/31.2/12.5, as slices of
 * 172.5/92.5/32.5 ms would.  In I/O-count mode the queues of a group
 * share by the requests each sends (cfq_fill_queue()), not by how long
 * their slices last, and the last window goes to the others' requests:
 * idling through it cost two sequential readers at levels 0 and 7 on a
 * depth-8 device 2 % of their I/Os.
 */
static u64 cfq_queue_idle_for(struct cfq_meta_data *cmd,
			      struct cfq_queue *cfqq, u64 gclock)
{
	u64 idle = cfq_tun_ns(cmd, CFQ_SLICE_IDLE);
	u64 left;

	if (!test_bit(CFQQ_SLICE_STARTED, &cfqq->flags) ||
	    gclock >= cfqq->slice_end)
		return 0;
	left = cfqq->slice_end - gclock;
	if (cfq_iops_mode(cmd))
		return left > idle ? idle : 0;
	if (left <= cfqq->ttime_mean)
		return 0;
	return min(left, idle);
}

/*
 * Choose the queue of @cfqd to serve: keep the active one while its slice
 * lasts and it has requests (or is worth idling for), else take the head
 * of the highest non-empty class.  @gclock is the group's clock.
 */
static enum cfq_verdict cfq_select_queue(struct cfq_meta_data *cmd,
					 struct cfq_data *cfqd, u64 now,
					 u64 gclock)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	lockdep_assert_held(&cmd->lock);

	if (cfqq) {
		if (test_bit(CFQQ_SLICE_STARTED, &cfqq->flags) &&
		    gclock >= cfqq->slice_end) {
			if (!cfq_fill_owed(cmd, cfqq, now))
				goto expire;
			cfqq->slice_end = gclock + cfq_queue_slice(cmd, cfqq);
		}
		if (cfq_preempted(cfqd, cfqq))
			goto expire;
		if (cfqq->queued) {
			if (!test_bit(CFQQ_SYNC, &cfqq->flags) &&
			    cfqq->slice_dispatch >= cfq_async_max_rq(cmd, cfqq))
				goto expire;
			return cfq_may_dispatch(cmd, cfqq) ? CFQ_SERVE :
							     CFQ_WAIT;
		}
		if (cfq_should_idle(cmd, cfqq)) {
			u64 idle;

			if (cfqq->dispatched || cmd->idling == CFQ_IDLE_QUEUE)
				return CFQ_WAIT;
			idle = cfq_queue_idle_for(cmd, cfqq, gclock);
			/* Too little slice left to idle for, but still owed. */
			if (!idle &&
			    test_bit(CFQQ_SLICE_STARTED, &cfqq->flags) &&
			    cfq_fill_owed(cmd, cfqq, now)) {
				cfqq->slice_end = gclock +
						  cfq_queue_slice(cmd, cfqq);
				idle = cfq_queue_idle_for(cmd, cfqq, gclock);
			}
			if (idle) {
				cfq_idle_arm(cmd, CFQ_IDLE_QUEUE, now, idle);
				return CFQ_WAIT;
			}
		}
		/*
		 * Not idled for, but the group, with nothing else queued, is
		 * held (for its requests in the driver, or by group idling):
		 * where service is counted in requests, expiring the queue
		 * would only have it start a new slice at its next request,
		 * for a task alone in its group once per request.
		 */
		if (cfq_iops_mode(cmd) && cfq_group_holds(cmd, cfqd))
			return CFQ_WAIT;
expire:
		cfq_slice_expired(cmd, cfqd, now);
	}

	cfqq = cfq_rr_first(cmd, cfqd, now);
	if (!cfqq)
		return CFQ_EMPTY;
	cfq_slice_activate(cmd, cfqd, cfqq);
	return cfq_may_dispatch(cmd, cfqq) ? CFQ_SERVE : CFQ_WAIT;
}

/* Take the request to dispatch from the active queue of @cfqd. */
static __always_inline struct request *
cfq_dispatch_from(struct cfq_meta_data *cmd, struct cfq_data *cfqd, u64 now,
		  u64 gclock)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	struct request *rq = NULL;

	lockdep_assert_held(&cmd->lock);

	if (!test_bit(CFQQ_FIFO_SERVED, &cfqq->flags)) {
		rq = list_first_entry(&cfqq->fifo, struct request, queuelist);
		if (cfq_fifo_expired(now, rq->fifo_time)) {
			__set_bit(CFQQ_FIFO_SERVED, &cfqq->flags);
			cfq_log_cfqq(cmd, cfqq, "fifo expired, sector %llu",
				     (u64)blk_rq_pos(rq));
		} else {
			rq = NULL;
		}
	}
	if (!rq)
		rq = cfqq->next_rq;
	cfq_remove_rq(cmd, rq);

	if (!test_bit(CFQQ_SLICE_STARTED, &cfqq->flags)) {
		cfqq->slice_end = gclock + cfq_queue_slice(cmd, cfqq);
		__set_bit(CFQQ_SLICE_STARTED, &cfqq->flags);
		cfq_log_cfqq(cmd, cfqq, "slice of %llu us",
			     div_u64(cfqq->slice_end - gclock, 1000));
	}
	cfqq->slice_dispatch++;
	cfqd->dispatched++;
	return rq;
}

/* ---------------------------------------------------------------------
 * Concurrent service, queue level (see cfq_fill())
 */

/*
 * What a dispatch adds to a queue's fill_vt: the inverse of its slice, so
 * two queues that keep their fill_vt level get requests in the ratio of
 * their slices, the ratio CFQ's round robin gives them in time.
 */
static u64 cfq_fill_charge(const struct cfq_queue *cfqq)
{
	return div_u64(CFQ_FILL_UNIT, cfq_prio_slice(CFQ_FILL_BASE,
						     cfqq->ioclass,
						     cfqq->ioprio));
}

/*
 * Is @cfqq, with nothing queued at @now, in a gap it did not choose: its
 * requests still in the driver, or its last completion within slice_idle?
 * Else it paused.
 */
static bool cfq_fill_in_gap(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
			    u64 now)
{
	return cfqq->dispatched ||
	       now - cfqq->last_end <= cfq_tun_ns(cmd, CFQ_SLICE_IDLE);
}

/*
 * @cfqq gets a request at @now with none queued.  Back from a pause, it
 * joins no lower than its group's fill_min (the active queue's fill_vt):
 * it is owed nothing for the time it had no work.  Back from a gap it did
 * not choose (its requests still in the driver, or its last completion
 * within slice_idle), it keeps what it is owed, up to CFQ_FILL_KEEP: a
 * task that reads 1 MiB at a time is without queued requests between
 * its reads, and the requests the other queues sent while it was served
 * are owed back to it in their slices.
 */
static void cfq_fill_join(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
			  u64 now)
{
	u64 floor = cfqq->cfqd->fill_min;

	if (cfq_fill_in_gap(cmd, cfqq, now))
		floor -= CFQ_FILL_KEEP;
	if (cfq_vtime_before(cfqq->fill_vt, floor))
		cfqq->fill_vt = floor;
}

/*
 * The active queue @cfqq used its slice at @now: is it still owed
 * requests, with work queued or in the driver (a task that reads 1 MiB at
 * a time has none queued while it waits for the last part), or between
 * two of its requests (its last completed within slice_idle, and it is
 * idled for), and its fill_vt before that of the next queue of its class
 * in the round robin (a tie goes to the other)?  Then it starts a new
 * slice in place.  With concurrent service, the others got their part of
 * the requests during its slice, and it fell behind during theirs, when
 * it could not take its part of their requests: handing the device on
 * now would lose what it is owed.  So would handing it on in the moment
 * between two reads of its task: on a device deeper than a read's
 * requests, the next queue's slice would fill the slots the owed queue
 * cannot use, and its task would come back to a queue that is no longer
 * served.
 */
static bool cfq_fill_owed(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
			  u64 now)
{
	struct rb_node *n;

	if (!cfq_fill_on(cmd) || cfqq->ioclass == CFQ_CLASS_IDLE)
		return false;
	if (!cfqq->queued && !cfqq->dispatched &&
	    !(cfq_fill_in_gap(cmd, cfqq, now) && cfq_should_idle(cmd, cfqq)))
		return false;
	n = rb_first_cached(&cfqq->cfqd->service_tree[cfqq->ioclass]);
	return n && cfq_vtime_before(cfqq->fill_vt,
				     rb_entry(n, struct cfq_queue,
					      rb_node)->fill_vt);
}

/*
 * A queue of the served group @cfqd, other than its active one, that may
 * use a free slot: of the active queue's class (RT or BE), not ahead in
 * fill_vt of the active queue's completed requests (below), and allowed
 * another request in the driver; the first such of the round robin's
 * first CFQ_FILL_SCAN.  While the active queue is served, each other
 * queue then gets its slice's part of the requests.
 *
 * The active queue counts here without its requests still in the driver:
 * a queue waiting for its part is let go as the active queue's requests
 * complete, not the moment they are dispatched.  Let go at dispatch, its
 * requests would go with the active queue's and complete with them, and
 * on a busy CPU the two tasks would wake together and wait for each
 * other.
 */
static struct cfq_queue *cfq_fill_queue(struct cfq_meta_data *cmd,
					struct cfq_data *cfqd)
{
	struct cfq_queue *act = cfqd->active_queue, *cfqq;
	struct rb_node *n;
	u64 done_vt;
	int i = 0;

	lockdep_assert_held(&cmd->lock);

	if (!act || act->ioclass == CFQ_CLASS_IDLE)
		return NULL;
	done_vt = act->fill_vt - (u64)act->dispatched * act->fill_charge;
	for (n = rb_first_cached(&cfqd->service_tree[act->ioclass]);
	     n && i < CFQ_FILL_SCAN; n = rb_next(n), i++) {
		cfqq = rb_entry(n, struct cfq_queue, rb_node);
		if (!cfq_vtime_before(done_vt, cfqq->fill_vt) &&
		    cfq_may_fill(cmd, cfqq))
			return cfqq;
	}
	return NULL;
}

/*
 * The queue of @cfqd, a group not served now, that would use a free slot:
 * its active queue if that has requests, else the head of its round robin
 * (cfq_rr_first()); RT or BE, and if it may send another request.
 */
static struct cfq_queue *cfq_fill_queue_of(struct cfq_meta_data *cmd,
					   struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	lockdep_assert_held(&cmd->lock);

	if (!cfqq || !cfqq->queued || cfqq->ioclass == CFQ_CLASS_IDLE)
		cfqq = cfq_rr_first(cmd, cfqd, now);
	return cfqq && cfqq->ioclass != CFQ_CLASS_IDLE &&
	       cfq_may_fill(cmd, cfqq) ? cfqq : NULL;
}

/*
 * Take a request of @cfqq, not its group's served queue, for a free slot:
 * its FIFO head if that expired, else the next in sector order.  Its
 * slice is left alone.
 */
static struct request *cfq_fill_from(struct cfq_meta_data *cmd,
				     struct cfq_queue *cfqq, u64 now)
{
	struct request *rq;

	lockdep_assert_held(&cmd->lock);

	rq = list_first_entry(&cfqq->fifo, struct request, queuelist);
	if (!cfq_fifo_expired(now, rq->fifo_time))
		rq = cfqq->next_rq;
	cfq_remove_rq(cmd, rq);
	cfqq->cfqd->dispatched++;
	return rq;
}

/*
 * The read to time first while a write cache is not priced yet
 * (cfq_media_unpriced()): the oldest next request of a queue, RT or BE,
 * that is a read, or NULL if none (a queue's next request may be a
 * write with a read behind it: it waits for its turn).  Taken out of its
 * queue as a filler's is, and charged to its group at completion as any
 * request is.  While a request is in the driver, none is taken and
 * *@wait says whether one would have been.  A walk over every queue of
 * every busy group, made at each dispatch until such a device has timed
 * CFQ_MEDIA_MIN_SAMPLES reads: once per elevator where reads come, but
 * for as long as only writes do (a write-only load on such a disk, where
 * the walk is short beside the disk's own time).
 */
static noinline struct request *cfq_media_probe(struct cfq_meta_data *cmd,
						bool *wait)
{
	struct request *rq = NULL;
	struct cfq_queue *cfqq;
	struct cfq_data *cfqd;

	lockdep_assert_held(&cmd->lock);

	list_for_each_entry(cfqd, &cmd->groups, node) {
		if (!cfqd->nr_queued)
			continue;
		list_for_each_entry(cfqq, &cfqd->queues, group_node) {
			struct request *next = cfqq->next_rq;

			if (!cfqq->queued || cfqq->ioclass == CFQ_CLASS_IDLE ||
			    op_is_write(req_op(next)))
				continue;
			if (!rq || next->fifo_time < rq->fifo_time)
				rq = next;
		}
	}
	*wait = rq && cmd->in_driver;
	if (!rq || *wait)
		return NULL;
	cfq_remove_rq(cmd, rq);
	RQ_CFQQ(rq)->cfqd->dispatched++;
	return rq;
}

#ifdef CONFIG_CFQ_KUNIT_TEST
#include "cfq-queue-test.c"
#endif
