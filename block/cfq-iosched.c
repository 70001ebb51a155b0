// SPDX-License-Identifier: GPL-2.0
/*
 * Two-layer CFQ I/O scheduler for blk-mq.
 *
 * The top layer (cfq meta-data, cfq-group.c) orders the busy groups of a
 * device by virtual disk time and serves one group at a time for a turn of
 * group_slice * weight / 8.  Inside a group, a cfq_data runs conventional
 * CFQ over its queues: one sync queue per io_context, async queues per
 * (class, level); RT before BE before IDLE; each queue is served for a
 * time slice scaled by its level, in round-robin order; the device is kept
 * idle for slice_idle after a sequential sync queue empties, so that its
 * next request keeps the slice; requests leave a queue in sector order
 * unless the oldest has passed its FIFO deadline.
 *
 * Queue slices run on the group's clock: the nanoseconds the group has been
 * served.  A queue whose group loses the device keeps the rest of its slice
 * for the group's next turn, so task shares inside a group do not depend on
 * how the group's turns are cut.
 *
 * Service is charged to a group when each of its requests completes: in
 * time mode the device time since the previous completion (or since the
 * request was dispatched, if the device was idle), with writes a disk
 * keeps in its cache charged what a read costs (cfq_media_charge()); in
 * IOPS mode a fixed cost per request.  See the service_mode tunable.
 *
 * The small helpers every request passes through more than one call site
 * of are __always_inline: each call cost more in saving and restoring
 * registers than its work, about 1.5 % of the instructions per I/O on a
 * device that completes at once (tests/tools/insn-profile).
 *
 * Locking and lifetimes: include/linux/cfq-iosched.h.
 */
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "blk-mq-sched.h"
#include "cfq.h"

/*
 * The per-task layer and the group layer live in files of their own but
 * are built here, as one compilation unit (kernel/sched/build_policy.c does
 * the same for the scheduling classes): every request passes through some
 * forty small helpers of the three, and only within one unit can the
 * compiler inline them into the hooks.
 */
#include "cfq-group.c"
#include "cfq-queue.c"

/*
 * A tunable: default, accepted range, and unit.  Times are in
 * milliseconds in sysfs and converted to nanoseconds where used.
 */
struct cfq_tunable_def {
	const char	*name;
	u32		def;
	u32		min;
	u32		max;
	bool		ms;
};

static const struct cfq_tunable_def cfq_tunables[CFQ_NR_TUNABLES] = {
	/* Requests a queue may have in the driver at once. */
	[CFQ_QUANTUM]		= { "quantum",		 8,	1, 256 },
	/* A request older than this is served before sector order. */
	[CFQ_FIFO_EXPIRE_SYNC]	= { "fifo_expire_sync",	 125,	1, 60000, true },
	[CFQ_FIFO_EXPIRE_ASYNC]	= { "fifo_expire_async", 250,	1, 60000, true },
	/* Backward seeks up to this many KiB are taken, at a cost ... */
	[CFQ_BACK_SEEK_MAX]	= { "back_seek_max",	 16384,	0, 1 << 20 },
	/* ... of this many times the forward distance. */
	[CFQ_BACK_SEEK_PENALTY]	= { "back_seek_penalty", 2,	1, 1000 },
	/* Slice of a best-effort level-4 queue; other levels scale from it. */
	[CFQ_SLICE_SYNC]	= { "slice_sync",	 100,	1, 10000, true },
	[CFQ_SLICE_ASYNC]	= { "slice_async",	 40,	1, 10000, true },
	/* Async requests per slice, times 2 * (8 - level). */
	[CFQ_SLICE_ASYNC_RQ]	= { "slice_async_rq",	 2,	1, 1024 },
	/* Wait for a sequential sync queue's next request; 0 disables. */
	[CFQ_SLICE_IDLE]	= { "slice_idle",	 8,	0, 1000, true },
	/* Wait for a sync group's next request before switching groups. */
	[CFQ_GROUP_IDLE]	= { "group_idle",	 8,	0, 1000, true },
	/* Shrink slices so that a round of busy queues fits target_latency. */
	[CFQ_LOW_LATENCY]	= { "low_latency",	 1,	0, 1 },
	[CFQ_TARGET_LATENCY]	= { "target_latency",	 300,	1, 10000, true },
	/* Turn of a weight-8 group; a group of weight w gets w/8 of it. */
	[CFQ_GROUP_SLICE]	= { "group_slice",	 100,	1, 10000, true },
	/* 0: auto (time if rotational, else I/O count), 1: time, 2: I/Os. */
	[CFQ_SERVICE_MODE]	= { "service_mode",	 0,	0, 2 },
	/* Scale a group's scheduler tags by its weight (see limit_depth). */
	[CFQ_GROUP_DEPTH]	= { "group_depth",	 1,	0, 1 },
	/* No seek cost (cfq_seeks_free()): no idling among equals. */
	[CFQ_EQUAL_NOIDLE]	= { "equal_noidle",	 1,	0, 1 },
	/* Others may use device slots the served leave (time: its gaps). */
	[CFQ_FILL_SLOTS]	= { "fill_slots",	 1,	0, 1 },
	/* Flush a disk's write cache after a writers' turn: 1 at depth 1, 2 any. */
	[CFQ_WRITEBACK_FLUSH]	= { "writeback_flush",	 1,	0, 2 },
};

/* ---------------------------------------------------------------------
 * Dispatch
 */

/* Count a request's I/O in its group's cfq.stat (@d = 1) or take it back. */
static void cfq_stat_io(struct cfq_data *cfqd, struct request *rq, int d)
{
	struct cfq_stat *st = cfqd->stat;
	enum cfq_dir dir = op_is_write(req_op(rq)) ? CFQ_WRITE : CFQ_READ;

	if (!st)
		return;
	WRITE_ONCE(st->ios[dir], st->ios[dir] + d);
	WRITE_ONCE(st->bytes[dir], st->bytes[dir] + d * (s64)blk_rq_bytes(rq));
}

/* Account a request leaving the scheduler for the driver. */
static void cfq_account_dispatch(struct cfq_meta_data *cmd,
				 struct request *rq, u64 now)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	struct cfq_data *cfqd = cfqq->cfqd;
	sector_t pos = blk_rq_pos(rq), last = cmd->last_position;
	unsigned long state = CFQ_RQ_IN_DRIVER;

	lockdep_assert_held(&cmd->lock);

	if (cmd->media.debt && !cmd->in_driver && now > cmd->last_completion)
		cfq_media_idle(&cmd->media, now - cmd->last_completion);
	if ((pos > last ? pos - last : last - pos) > CFQ_SEEK_THR)
		state |= CFQ_RQ_FAR;
	if (blk_rq_bytes(rq) > CFQ_SVC_LARGE_BYTES)
		state |= CFQ_RQ_LARGE;
	cfqq->dispatched++;
	cfqq->nr_dispatched++;
	cfqd->in_driver++;
	cfqd->turn_sent++;
	WRITE_ONCE(cmd->in_driver, cmd->in_driver + 1);
	/* Kept in every mode (cheaper than asking): cfq_fill_queue(). */
	cfqq->fill_vt += cfqq->fill_charge;
	if (cfqd->active_queue == cfqq &&
	    cfq_vtime_before(cfqd->fill_min, cfqq->fill_vt))
		cfqd->fill_min = cfqq->fill_vt;
	cfq_stat_io(cfqd, rq, 1);
	if (rq_is_sync(rq)) {
		cfqd->sync_in_driver++;
		cmd->sync_in_driver++;
	}
	if (cfqq->ioclass == CFQ_CLASS_IDLE) {
		state |= CFQ_RQ_IDLE_CLASS;
	} else {
		cmd->nonidle_in_driver++;
		cmd->last_nonidle = now;
	}
	cfq_rq_set_state(rq, state);
	cmd->last_position = pos + blk_rq_sectors(rq);
	rq->fifo_time = now;	/* from here on: when it was dispatched */
}

/* Undo cfq_account_dispatch() for a request that completed or came back. */
static __always_inline void cfq_account_done(struct cfq_meta_data *cmd,
					     struct request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	struct cfq_data *cfqd = cfqq->cfqd;
	unsigned long state = cfq_rq_state(rq);

	lockdep_assert_held(&cmd->lock);

	cfq_rq_set_state(rq, 0);
	if (WARN_ON_ONCE(!cfqq->dispatched || !cfqd->in_driver ||
			 !cmd->in_driver))
		return;
	cfqq->dispatched--;
	cfqd->in_driver--;
	WRITE_ONCE(cmd->in_driver, cmd->in_driver - 1);
	if (rq_is_sync(rq)) {
		cfqd->sync_in_driver--;
		cmd->sync_in_driver--;
	}
	if (!(state & CFQ_RQ_IDLE_CLASS))
		cmd->nonidle_in_driver--;
}

/*
 * Feed the seek-cost estimate: @service is the device time a completed
 * request took (from its dispatch or the previous completion, whichever
 * came later), @state whether it seeked and was large.  Only a request
 * that was alone in the device is a sample: where several are in flight
 * (NCQ), the disk orders them itself and each one's share of the time
 * says nothing of what a seek costs; such a disk keeps its idling.  On a
 * device that holds one command at a time every request is served alone:
 * those dispatched behind it wait in blk-mq's dispatch list, and are
 * timed from its completion.
 */
static void cfq_seek_sample(struct cfq_meta_data *cmd, unsigned long state,
			    u64 service)
{
	enum cfq_seek_kind kind = state & CFQ_RQ_FAR ? CFQ_SEEK_FAR :
						       CFQ_SEEK_NEAR;
	enum cfq_svc_size size = cfq_rq_svc_size(state);
	u64 *mean = &cmd->svc_mean[size][kind];
	u32 *n = &cmd->svc_samples[size][kind];

	lockdep_assert_held(&cmd->lock);

	*mean = *n ? div_u64(*mean * 7 + service, 8) : service;
	if (*n < U16_MAX)
		(*n)++;
}

/*
 * Decide to wait.  Only legal when something will kick the queue: a
 * request in the driver (its completion) or an armed idle timer.
 */
static bool cfq_wait(struct cfq_meta_data *cmd)
{
	if (WARN_ON_ONCE(!cmd->in_driver && cmd->idling == CFQ_IDLE_NONE))
		return false;
	WRITE_ONCE(cmd->waiting, true);
	return true;
}

/*
 * An event that may end a wait (a completion, a group reaped): if work
 * is queued behind a wait, end it.  True if the caller should run the
 * hardware queues once it has dropped the lock.
 */
static bool cfq_end_wait(struct cfq_meta_data *cmd)
{
	lockdep_assert_held(&cmd->lock);

	if (!cmd->waiting || !cmd->nr_queued)
		return false;
	WRITE_ONCE(cmd->waiting, false);
	cmd->events[CFQ_EV_KICK]++;
	return true;
}

/*
 * What the device takes for @rq, by the requests of its size measured
 * (time mode): the longer of the near and the far mean, or 0 if unknown.
 */
static u64 cfq_svc_estimate(struct cfq_meta_data *cmd, struct request *rq)
{
	enum cfq_svc_size size = blk_rq_bytes(rq) > CFQ_SVC_LARGE_BYTES ?
				 CFQ_SVC_LARGE : CFQ_SVC_SMALL;
	u64 est = 0;
	int k;

	for (k = 0; k < CFQ_NR_SEEK_KINDS; k++)
		if (cmd->svc_samples[size][k])
			est = max(est, cmd->svc_mean[size][k]);
	return est;
}

/*
 * Time mode.  The served group @cfqd is idled for as a group (its queues
 * are not worth idling for by themselves: seeky, or slow to come back)
 * and thinks between requests (CFQ_SPARE_THINK_NS), and the device is
 * idle.  Where requests far apart are known to take less than a disk's
 * (cfq_far_is_short()), no head is kept in place by the wait: a waiting
 * group may put one request into the gap, if the device is expected to
 * be done with it before the thinker's next request comes (from its
 * think time and what the device took for requests of that size).  One
 * per gap, so that the thinker finds the device free; it is charged as a
 * spare slot is (cfq_entity_charge()).  The served group keeps its turn:
 * the wait and its timer go on.
 */
static struct request *cfq_fill_gap(struct cfq_meta_data *cmd,
				    struct cfq_data *cfqd, u64 now,
				    bool *spare)
{
	struct cfq_queue *cfqq;
	struct cfq_data *g;
	u64 est;

	lockdep_assert_held(&cmd->lock);

	if (cmd->idling != CFQ_IDLE_GROUP || cmd->in_driver ||
	    cfqd->nr_queued || cfqd->in_driver ||
	    cfqd->think_samples < CFQ_IDLE_MIN_SAMPLES ||
	    cfqd->think_mean < CFQ_SPARE_THINK_NS ||
	    cmd->gap_filled == cfqd->sync_done ||
	    !cfq_far_is_short(cmd->svc_mean, cmd->svc_samples))
		return NULL;
	g = cfq_group_fill_pick(cmd, 1, true);	/* the one slot: idle */
	cfqq = g ? cfq_fill_queue_of(cmd, g, now) : NULL;
	if (!cfqq)
		return NULL;
	est = cfq_svc_estimate(cmd, cfqq->next_rq);
	if (!est || now - cfqd->sync_done + est > cfqd->think_mean)
		return NULL;
	cmd->gap_filled = cfqd->sync_done;
	cmd->events[CFQ_EV_FILL_GAP]++;
	*spare = true;
	return cfq_fill_from(cmd, cfqq, now);
}

/*
 * Concurrent service.  The served group @cfqd waits (for its active
 * queue's next request, for its requests in the driver, or for a quantum
 * to complete) while the device has free slots.  In I/O-count mode, where
 * no disk head is kept in place by waiting, another queue of the group
 * (cfq_fill_queue()), else a waiting group (cfq_group_fill_pick()), may
 * use one, as far as that keeps it within its share; it is charged as any
 * request is, at completion.  A served group with nothing queued and
 * nothing in the driver, whose tasks think between requests
 * (CFQ_SPARE_THINK_NS), cannot use a slot now: a waiting group may take
 * one whatever its key (*@spare, see cfq_entity_charge()), so that a
 * thinking reader's credit does not keep the device idle.  If none may,
 * the active queue may go past its quantum.  The served group keeps the
 * device: the wait and its timer go on.  In time mode only a thinker's
 * gap is filled (cfq_fill_gap()).
 */
static struct request *cfq_fill(struct cfq_meta_data *cmd,
				struct cfq_data *cfqd, u64 now, bool *spare)
{
	unsigned int depth = cfq_hw_depth(cmd);
	struct cfq_queue *cfqq;
	struct cfq_data *g;
	bool dry;

	lockdep_assert_held(&cmd->lock);

	*spare = false;
	if (!cmd->tun[CFQ_FILL_SLOTS])
		return NULL;
	if (!cfq_iops_mode(cmd))
		return cfq_fill_gap(cmd, cfqd, now, spare);
	if (cmd->in_driver >= depth)
		return NULL;
	cfqq = cfq_fill_queue(cmd, cfqd);
	if (cfqq) {
		cmd->events[CFQ_EV_FILL_QUEUE]++;
		return cfq_fill_from(cmd, cfqq, now);
	}
	dry = !cfqd->nr_queued && !cfqd->in_driver &&
	      cfqd->think_samples >= CFQ_IDLE_MIN_SAMPLES &&
	      cfqd->think_mean >= CFQ_SPARE_THINK_NS;
	g = cfq_group_fill_pick(cmd, depth, dry);
	cfqq = g ? cfq_fill_queue_of(cmd, g, now) : NULL;
	if (cfqq) {
		cmd->events[CFQ_EV_FILL_GROUP]++;
		*spare = dry;
		return cfq_fill_from(cmd, cfqq, now);
	}
	/*
	 * No one else may use the slots: the active queue may, past its
	 * quantum, which is there to leave room for others.
	 */
	cfqq = cfqd->active_queue;
	if (!cfqq || !cfqq->queued || cfqq->ioclass == CFQ_CLASS_IDLE ||
	    (!test_bit(CFQQ_SYNC, &cfqq->flags) && cmd->sync_in_driver))
		return NULL;
	cmd->events[CFQ_EV_FILL_QUEUE]++;
	return cfq_dispatch_from(cmd, cfqd, now,
				 cfq_group_clock(cmd, cfqd, now));
}

/*
 * Write-back flushes.  In time mode, on a disk with its write cache on
 * (taking one command at a time, or with writeback_flush 2 any number), a
 * turn in which a group wrote into the cache ends with a flush that cfq
 * sends itself, once its requests are done, and the device waits for it:
 * the disk writes the turn's writes back then, where they are, one
 * destage after another, and the flush's time is what they cost the
 * media.  The group is charged that, in place of what it was charged past
 * their time (a cached write's price, cfq_media_charge()), and the price
 * moves toward it, so that the next turn ends about when its writes have
 * cost its share.  No other group then waits behind this one's
 * write-back.  With a queue in the disk the flush halved what the
 * emulated disk did (it cannot overlap the turns), so there it is left
 * to the tunable.
 */
struct cfq_flush {
	struct bio		bio;
	struct work_struct	work;
	struct block_device	*bdev;
	/* NULL once the elevator has gone (cfq_flush_lock). */
	struct cfq_meta_data	*cmd;
	struct cfq_data		*cfqd;		/* the writers, a reference */
	u64			start;		/* ns, sent */
	s64			owed;		/* charged past their time */
	u32			writes;		/* priced writes in it */
};

/* Orders a flush's end against the elevator's exit. */
static DEFINE_SPINLOCK(cfq_flush_lock);
/* Flushes not ended yet, elevator gone or not: the module waits for them. */
static atomic_t cfq_flushes = ATOMIC_INIT(0);

static void cfq_flush_end_io(struct bio *bio);

/*
 * Process context (kblockd): the flush leaves for the disk.  It must not
 * wait: the device is kept idle for it, so whatever it would wait for
 * (a scheduler tag held by a request we hold back, a frozen queue, write
 * throttling, which passes REQ_SYNC | REQ_IDLE) would not come before the
 * idle timer.  REQ_NOWAIT fails it at once instead, and the turn ends
 * without it (cfq_flush_done()).
 */
static void cfq_flush_work_fn(struct work_struct *work)
{
	struct cfq_flush *f = container_of(work, struct cfq_flush, work);

	/* Here, not under our lock: the bio takes a blkg (queue_lock). */
	bio_init(&f->bio, f->bdev, NULL, 0, REQ_OP_WRITE | REQ_PREFLUSH |
		 REQ_SYNC | REQ_IDLE | REQ_NOWAIT);
	f->bio.bi_end_io = cfq_flush_end_io;
	f->start = ktime_get_ns();
	submit_bio(&f->bio);
}

/*
 * Is a flush worth it after @cfqd's turn: did another group read in the
 * last CFQ_FLUSH_READ_NS?  Among writers alone nobody's reads wait behind
 * the write-back, and a flush costs: a cache left full gives the disk
 * short seeks from one write-back to the next, and a turn's flush of
 * unpriced writes (no read to price them) can take seconds.
 */
static bool cfq_flush_helps(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			    u64 now)
{
	struct cfq_data *g;

	list_for_each_entry(g, &cmd->groups, node)
		if (g != cfqd && g->read_stamp &&
		    now - g->read_stamp < CFQ_FLUSH_READ_NS)
			return true;
	return false;
}

/*
 * The turn of @cfqd ends at @now.  If it wrote into the disk's cache
 * since the last flush, and others read, send one and wait for it: true
 * if the caller must wait.
 */
static bool cfq_writeback_flush(struct cfq_meta_data *cmd,
				struct cfq_data *cfqd, u64 now)
{
	struct cfq_flush *f;

	lockdep_assert_held(&cmd->lock);

	if (!cmd->flush_dirty || cmd->dirty_group != cfqd || cmd->flush)
		return false;
	if (cmd->tun[CFQ_WRITEBACK_FLUSH] < (cfq_hw_depth(cmd) == 1 ? 1 : 2) ||
	    cfq_iops_mode(cmd) || !blk_queue_write_cache(cmd->queue) ||
	    !cfq_flush_helps(cmd, cfqd, now)) {
		/* What the cache holds is left to the price. */
		cmd->flush_dirty = false;
		cmd->flush_owed = 0;
		cmd->flush_writes = 0;
		return false;
	}
	if (cmd->in_driver)
		return cfq_wait(cmd);	/* from its completion */
	f = kzalloc(sizeof(*f), GFP_NOWAIT);
	if (!f)
		return false;
	f->bdev = cmd->queue->disk->part0;
	INIT_WORK(&f->work, cfq_flush_work_fn);
	f->cmd = cmd;
	f->cfqd = cfqd;
	cfq_group_get(cfqd);
	f->owed = cmd->flush_owed;
	f->writes = cmd->flush_writes;
	cmd->flush = f;
	cmd->flush_owed = 0;
	cmd->flush_writes = 0;
	cmd->flush_dirty = false;
	cmd->events[CFQ_EV_FLUSH]++;
	atomic_inc(&cfq_flushes);
	cfq_idle_arm(cmd, CFQ_IDLE_FLUSH, now, CFQ_FLUSH_TIMEOUT_NS);
	kblockd_schedule_work(&f->work);
	return cfq_wait(cmd);
}

/*
 * The flush @f took @took ns (@ok: it succeeded).  Charge its writers
 * that, less what they were charged past their writes' time; move the
 * price toward a write's share of it.  True if the queue should run.
 */
static bool cfq_flush_done(struct cfq_meta_data *cmd, struct cfq_flush *f,
			   bool ok, u64 took)
{
	struct cfq_data *cfqd = f->cfqd;
	u64 now = cfq_clock(cmd, ktime_get_ns());
	s64 rest;

	lockdep_assert_held(&cmd->lock);

	cmd->flush = NULL;
	if (!ok)
		cmd->events[CFQ_EV_FLUSH_FAILED]++;
	if (ok) {
		rest = cfq_media_flushed(&cmd->media, took, f->owed,
					 f->writes);
		if (rest > 0)
			cfq_group_charge(cmd, cfqd, rest, false);
		else
			cfq_group_refund(cmd, cfqd, -rest);
		if (cfqd->stat)
			WRITE_ONCE(cfqd->stat->service_ns,
				   cfqd->stat->service_ns + took);
	}
	if (cmd->idling == CFQ_IDLE_FLUSH) {
		cfq_idle_cancel(cmd, now);
		if (cmd->active == cfqd)
			cfq_group_expire(cmd, now);
	}
	cfq_group_put(cmd, cfqd);
	WRITE_ONCE(cmd->waiting, false);
	return cmd->nr_queued;
}

/* The flush's completion, in any context. */
static void cfq_flush_end_io(struct bio *bio)
{
	struct cfq_flush *f = container_of(bio, struct cfq_flush, bio);
	u64 took = ktime_get_ns() - f->start;
	struct request_queue *q = NULL;
	struct cfq_meta_data *cmd;
	unsigned long flags;

	spin_lock_irqsave(&cfq_flush_lock, flags);
	cmd = f->cmd;
	if (cmd) {
		spin_lock(&cmd->lock);
		if (cfq_flush_done(cmd, f, !bio->bi_status, took))
			q = cmd->queue;
		spin_unlock(&cmd->lock);
	}
	/* Under cfq_flush_lock the elevator, so the queue, is still there. */
	if (q)
		blk_mq_run_hw_queues(q, true);
	spin_unlock_irqrestore(&cfq_flush_lock, flags);
	bio_uninit(bio);
	kfree(f);
	if (atomic_dec_and_test(&cfq_flushes))
		wake_up_var(&cfq_flushes);
}

/*
 * The elevator exits (queue frozen): forget a flush still in flight.  One
 * not sent yet is not sent at all: the disk may be on its way out.  One
 * sent ends on its own (cfq_flush_end_io()).
 */
static void cfq_flush_forget(struct cfq_meta_data *cmd)
{
	struct cfq_flush *f;

	spin_lock_irq(&cfq_flush_lock);
	f = cmd->flush;
	if (f)
		f->cmd = NULL;
	cmd->flush = NULL;
	spin_unlock_irq(&cfq_flush_lock);
	if (!f)
		return;
	spin_lock_irq(&cmd->lock);
	cfq_group_put(cmd, f->cfqd);
	spin_unlock_irq(&cmd->lock);
	if (cancel_work(&f->work)) {
		kfree(f);
		if (atomic_dec_and_test(&cfq_flushes))
			wake_up_var(&cfq_flushes);
	}
}

/*
 * The dispatch decision.  Serve the at-head list first; then, while a
 * disk's write cache is not priced yet, a read (cfq_media_unpriced());
 * then the active group's chosen queue until the group's turn is over,
 * it runs dry (after group idling), or it must wait.  Bounded: each pass
 * either returns or ends a turn, and a turn once ended is not picked
 * again in the same call unless it is still first in line.
 */
static struct request *cfq_dispatch(struct cfq_meta_data *cmd, u64 now)
{
	enum cfq_verdict verdict;
	struct cfq_data *cfqd;
	struct request *rq;
	bool spare = false;
	int pass;

	lockdep_assert_held(&cmd->lock);

	rq = list_first_entry_or_null(&cmd->dispatch, struct request,
				      queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		WRITE_ONCE(cmd->nr_queued, cmd->nr_queued - 1);
		goto out;
	}
	/*
	 * Nothing queued: another CPU took the request this call was run
	 * for.  Leave the state as it is; the next insert's dispatch ends
	 * what has run dry.
	 */
	if (!cmd->nr_queued)
		return NULL;
	if (cmd->idling == CFQ_IDLE_FLUSH && cfq_wait(cmd))
		return NULL;

	if (cfq_media_unpriced(cmd)) {
		bool wait;

		rq = cfq_media_probe(cmd, &wait);
		if (rq) {
			cmd->events[CFQ_EV_MEDIA_PROBE]++;
			goto out;
		}
		if (wait && cfq_wait(cmd))
			return NULL;
	}
	cfq_group_weights_check(cmd);
	if (now - cmd->tag_stamp >= CFQ_TAG_PERIOD_NS) {
		cmd->tag_stamp = now;
		cfq_group_tag_limits(cmd);
	}
	for (pass = 0; pass < 8; pass++) {
		cfqd = cmd->active;
		if (cfqd && cfq_turn_over(cmd, cfqd, now)) {
			if (cfq_writeback_flush(cmd, cfqd, now))
				return NULL;
			cfq_group_expire(cmd, now);
			cfqd = NULL;
		}
		if (!cfqd) {
			cfqd = cfq_group_pick(cmd, now);
			if (!cfqd)
				break;
			cfq_group_activate(cmd, cfqd, now);
		}

		verdict = cfq_select_queue(cmd, cfqd, now,
					   cfq_group_clock(cmd, cfqd, now));
		if (verdict == CFQ_SERVE) {
			rq = cfq_dispatch_from(cmd, cfqd, now,
					       cfq_group_clock(cmd, cfqd, now));
			goto out;
		}
		if (verdict == CFQ_WAIT || cfq_group_holds(cmd, cfqd)) {
			rq = cfq_fill(cmd, cfqd, now, &spare);
			if (rq)
				goto out;
			if (cfq_wait(cmd))
				return NULL;
		}
		if (cfq_writeback_flush(cmd, cfqd, now))
			return NULL;
		cfq_group_expire(cmd, now);
	}

	if (!cmd->nr_queued)
		return NULL;
	/*
	 * Work is queued that may not run yet: IDLE-class work while the
	 * device has not been idle long enough.  A completion or the timer
	 * brings us back.
	 */
	if (!cmd->in_driver && cmd->idling == CFQ_IDLE_NONE)
		cfq_idle_arm(cmd, CFQ_IDLE_CLASS_DELAY, now,
			     max(CFQ_IDLE_DELAY_NS -
				 min(now - cmd->last_nonidle, CFQ_IDLE_DELAY_NS),
				 NSEC_PER_MSEC));
	cfq_wait(cmd);
	return NULL;
out:
	if (RQ_CFQQ(rq)) {
		cfq_account_dispatch(cmd, rq, now);
		if (spare)
			cfq_rq_set_state(rq, cfq_rq_state(rq) | CFQ_RQ_SPARE);
	}
	rq->rq_flags |= RQF_STARTED;
	return rq;
}

/* Any request chosen ahead (cmd->ahead[]) not yet taken; no lock. */
static bool cfq_has_ahead(struct cfq_meta_data *cmd)
{
	int i;

	for (i = 0; i < CFQ_AHEAD_SLOTS; i++)
		if (READ_ONCE(cmd->ahead[i]))
			return true;
	return false;
}

/*
 * The first ahead slot a new choice may fill: the one after the last
 * that holds a request (CFQ_AHEAD_SLOTS if that is the last); under the
 * lock, which every filler holds.
 */
static int cfq_ahead_next(struct cfq_meta_data *cmd)
{
	int i;

	for (i = CFQ_AHEAD_SLOTS; i > 0; i--)
		if (READ_ONCE(cmd->ahead[i - 1]))
			break;
	return i;
}

/*
 * The first request chosen ahead that is still there, taken without the
 * lock: slots are filled in order, each after the last one taken
 * (cfq_ahead_next()), so requests leave in the order they were chosen
 * unless two hardware queues take them at once.
 */
static struct request *cfq_take_ahead(struct cfq_meta_data *cmd)
{
	struct request *rq;
	int i;

	for (i = 0; i < CFQ_AHEAD_SLOTS; i++) {
		if (!READ_ONCE(cmd->ahead[i]))
			continue;
		rq = xchg(&cmd->ahead[i], NULL);
		if (rq)
			return rq;
	}
	return NULL;
}

/*
 * Called from blk_mq_run_hw_queue() -> __blk_mq_sched_dispatch_requests()
 * in process context (the submitter or kblockd), IRQs enabled.
 */
static struct request *cfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_meta_data *cmd = hctx->sched_data;
	struct request *rq;
	u64 now = 0;

	rq = cfq_take_ahead(cmd);
	if (rq)
		return rq;
	/*
	 * In the task that has just inserted (it runs the queue itself),
	 * the insert's time stamp is the time.  Elsewhere (kblockd, a
	 * timer's kick, a completion's restart) that stamp may be old: read
	 * the clock, outside the lock, which is contended.
	 */
	if (READ_ONCE(cmd->clock_task) != current || !in_task())
		now = ktime_get_ns();
	spin_lock_irq(&cmd->lock);
	cfq_device_read(cmd);
	if (!now) {
		if (cmd->clock_task == current)
			now = cmd->clock;
		else
			now = ktime_get_ns();
	}
	WRITE_ONCE(cmd->clock_task, NULL);
	rq = cfq_dispatch(cmd, cfq_clock(cmd, now));
	cmd->events[CFQ_EV_DISPATCH]++;
	if (!rq) {
		cmd->events[CFQ_EV_DISPATCH_NONE]++;
		if (cmd->waiting && cmd->nr_queued)
			cmd->events[CFQ_EV_WAIT]++;
	}
	spin_unlock_irq(&cmd->lock);
	return rq;
}

/*
 * Called from blk_mq_run_hw_queue() and blk_mq_hctx_has_pending() without
 * the lock: a racy read, corrected by the next insert or kick.
 */
static bool cfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_meta_data *cmd = hctx->sched_data;

	return (READ_ONCE(cmd->nr_queued) && !READ_ONCE(cmd->waiting)) ||
	       cfq_has_ahead(cmd);
}

/* ---------------------------------------------------------------------
 * Insertion
 */

/*
 * The root group's async BE queue, referenced: where a request goes when
 * its own queue cannot be had (no memory, or its group is gone).
 */
static struct cfq_queue *cfq_root_queue(struct cfq_meta_data *cmd)
{
	struct cfq_queue **slot = cfq_async_slot(&cmd->root, CFQ_CLASS_BE,
						 CFQ_LEVEL_DEFAULT);

	lockdep_assert_held(&cmd->lock);

	if (!*slot)
		*slot = cfq_queue_alloc(cmd, &cmd->root, false, CFQ_CLASS_BE,
					CFQ_LEVEL_DEFAULT, 0);
	if (WARN_ON_ONCE(!*slot))
		return NULL;
	cfq_queue_get(*slot);
	return *slot;
}

/*
 * The group of a request's cgroup @css: usually the group of the task's
 * sync queue (@cic's), else looked up.
 */
static struct cfq_data *cfq_rq_group(struct cfq_meta_data *cmd,
				     struct cfq_io_cq *cic,
				     struct cgroup_subsys_state *css)
{
	lockdep_assert_held(&cmd->lock);

	if (cic && cic->sync_cfqq && cic->sync_cfqq->cfqd->css == css)
		return cic->sync_cfqq->cfqd;
	return cfq_group_lookup(cmd, css, true);
}

/*
 * The queue a request belongs to: its submitter's sync queue in the
 * submitter's group, or the group's async queue for its class and level.
 * Falls back to the root group's async BE queue when memory is short.
 */
static struct cfq_queue *cfq_rq_queue(struct cfq_meta_data *cmd,
				      struct request *rq, u64 now)
{
	struct cfq_io_cq *cic = rq->elv.icq ? icq_to_cic(rq->elv.icq) : NULL;
	bool in_task = cic && cic->icq.ioc == current->io_context;
	struct cfq_data *cfqd = cfq_rq_group(cmd, cic, RQ_CSS(rq));
	struct cfq_queue *cfqq, **slot;
	enum cfq_class ioclass;
	unsigned int level;

	lockdep_assert_held(&cmd->lock);

	cfq_rq_prio(req_get_ioprio(rq), in_task ? task_nice(current) : 0,
		    &ioclass, &level);

	/*
	 * A request can reach us after its io_context exited (a flush
	 * sequence's data, re-inserted by kblockd): exit_icq will not run
	 * again, so such a cic must not hold a queue.
	 */
	if (rq_is_sync(rq) && cic && !cic->exited) {
		cfqq = cic->sync_cfqq;
		if (cfqq && cfqq->cfqd != cfqd) {
			/* The task moved to another group. */
			cfq_log_cfqq(cmd, cfqq, "owner moved to [%s]",
				     cfqd->name);
			cic->sync_cfqq = NULL;
			WRITE_ONCE(cic->sync_queued, 0);
			cfqq->cic = NULL;
			cfq_queue_put(cmd, cfqq);
			cfqq = NULL;
		}
		if (!cfqq) {
			cfqq = cfq_queue_alloc(cmd, cfqd, true, ioclass, level,
					       in_task ? current->pid : 0);
			if (!cfqq)
				goto fallback;
			cic->sync_cfqq = cfqq;
			WRITE_ONCE(cic->sync_queued, 0);
			cfqq->cic = cic;
		}
		cfq_queue_set_prio(cmd, cfqq, ioclass, level, now);
		cfq_queue_get(cfqq);
		return cfqq;
	}

	slot = cfq_async_slot(cfqd, ioclass, level);
	if (!*slot) {
		*slot = cfq_queue_alloc(cmd, cfqd, false, ioclass, level, 0);
		if (!*slot)
			goto fallback;
	}
	cfq_queue_get(*slot);
	return *slot;

fallback:
	return cfq_root_queue(cmd);
}

/*
 * On the unified hierarchy a request belongs to the group of the cgroup
 * its bio is charged to (cfq_cgroup_get_bio()), not necessarily its
 * submitter's, taken at prepare_request: writeback, loop and other
 * workers submit for others.
 */
static void cfq_rq_attribute(struct request *rq)
{
	struct cgroup_subsys_state *css;

	if (!rq->bio || !cfq_cgroup_on_dfl())
		return;
	css = cfq_cgroup_get_bio(rq->bio);
	cfq_cgroup_put(RQ_CSS(rq));
	rq->elv.priv[1] = css;
}

/*
 * A sync request of @cfqd lets go of its tag (or of the group, requeued to
 * the root): the first task waiting at the group's gate may pass.  Any
 * context, without the lock.
 */
static void cfq_tags_put(struct cfq_data *cfqd)
{
	atomic_dec(&cfqd->tags_held);
	smp_mb__after_atomic();		/* pairs with set_current_state() */
	if (waitqueue_active(&cfqd->gate_wq))
		wake_up(&cfqd->gate_wq);
}

/* A new request may end an idle wait: stop idling if it is for us. */
static void cfq_insert_wakes(struct cfq_meta_data *cmd,
			     struct cfq_queue *cfqq, u64 now)
{
	struct cfq_data *cfqd = cfqq->cfqd;

	switch (cmd->idling) {
	case CFQ_IDLE_QUEUE:
		if (cmd->active == cfqd &&
		    (cfqd->active_queue == cfqq || cfq_preempted(cfqd,
						cfqd->active_queue)))
			cfq_idle_cancel(cmd, now);
		break;
	case CFQ_IDLE_GROUP:
		if (cmd->active == cfqd)
			cfq_idle_cancel(cmd, now);
		break;
	case CFQ_IDLE_CLASS_DELAY:
		if (cfqq->ioclass != CFQ_CLASS_IDLE)
			cfq_idle_cancel(cmd, now);
		break;
	default:
		break;
	}
}

static void cfq_insert_request(struct cfq_meta_data *cmd, struct request *rq,
			       blk_insert_t flags, u64 now)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	lockdep_assert_held(&cmd->lock);

	if (cfqq && !cfqq->cfqd->linked) {
		/*
		 * Inserted again after a requeue, but its group was reaped
		 * meanwhile (its cgroup went away while the request sat on
		 * blk-mq's requeue list): the root group takes it.
		 */
		cfq_log_cfqq(cmd, cfqq, "group gone, requeued to the root");
		if (rq_is_sync(rq))
			cfq_tags_put(cfqq->cfqd);
		cfq_queue_put(cmd, cfqq);
		cfqq = cfq_root_queue(cmd);
		rq->elv.priv[0] = cfqq;
		if (cfqq && rq_is_sync(rq))
			atomic_inc(&cfqq->cfqd->tags_held);
	}
	if (!cfqq) {
		cfq_rq_attribute(rq);
		cfqq = cfq_rq_queue(cmd, rq, now);
		if (!cfqq) {
			/* Cannot happen: the root async queue exists. */
			list_add_tail(&rq->queuelist, &cmd->dispatch);
			WRITE_ONCE(cmd->nr_queued, cmd->nr_queued + 1);
			return;
		}
		cfq_cgroup_put(RQ_CSS(rq));	/* the group holds its own */
		rq->elv.priv[0] = cfqq;
		cfq_rq_set_state(rq, 0);
		if (rq_is_sync(rq))
			atomic_inc(&cfqq->cfqd->tags_held);
	}

	if (flags & BLK_MQ_INSERT_AT_HEAD) {
		list_add(&rq->queuelist, &cmd->dispatch);
		WRITE_ONCE(cmd->nr_queued, cmd->nr_queued + 1);
	} else {
		cfq_add_rq(cmd, cfqq, rq, now);
		cfq_insert_wakes(cmd, cfqq, now);
	}
}

/*
 * May a choice be made now for the queue run to come (cmd->ahead[])?  In
 * I/O-count mode, with a slot free after those taken and the device not
 * full.
 */
static bool cfq_may_choose_ahead(struct cfq_meta_data *cmd)
{
	return cfq_iops_mode(cmd) && cfq_ahead_next(cmd) < CFQ_AHEAD_SLOTS &&
	       cmd->in_driver < cfq_hw_depth(cmd);
}

/*
 * The dispatches that follow an insert, done under the insert's hold of
 * the lock: blk-mq runs the hardware queue right after inserting, and its
 * dispatch_request then takes the requests from cmd->ahead[] without the
 * lock.  One lock round trip per I/O fewer where CPUs contend for it.
 * Only in I/O-count mode and while the device has free slots, where the
 * dispatch that follows would choose the same: a device that is full, or
 * a rotational one, keeps the choice until it can take a request.
 *
 * Where other work is queued, a second dispatch is tried too.  Either it
 * finds a request, which the run takes next, or it finds that none may
 * go now and leaves the scheduler waiting: has_work() then says so, and
 * the run does not take the lock again only to learn it (a reader beside
 * a queue that is over its share, once per request).  Slots still held
 * by an earlier choice, whose run has yet to take it, do not stop a new
 * one: it goes in the slots after them (cfq_ahead_next()).  True if a
 * request was chosen.  Inlined into its two callers, insert and
 * completion, as are the charge and weight checks every I/O makes:
 * a call's frame is a measurable part of cfq's cost per I/O (7-cpu-cost).
 */
static __always_inline bool cfq_dispatch_ahead(struct cfq_meta_data *cmd,
					       u64 now)
{
	struct request *rq;
	bool chosen = false;
	int i;

	lockdep_assert_held(&cmd->lock);

	/* cfq_may_choose_ahead(), its tests made by the loop's first pass. */
	if (!now || !cfq_iops_mode(cmd))
		return false;
	for (i = cfq_ahead_next(cmd); i < CFQ_AHEAD_SLOTS && cmd->nr_queued;
	     i++) {
		if (cmd->in_driver >= cfq_hw_depth(cmd))
			break;
		rq = cfq_dispatch(cmd, now);
		if (!rq)
			break;
		cmd->events[CFQ_EV_AHEAD]++;
		/* Pairs with the xchg() in cfq_take_ahead(). */
		smp_store_release(&cmd->ahead[i], rq);
		chosen = true;
	}
	return chosen;
}

/*
 * Called from blk_mq_insert_request() and blk_mq_insert_requests() in
 * process context (the submitter's plug flush, or kblockd's requeue work).
 */
static void cfq_insert_requests(struct blk_mq_hw_ctx *hctx,
				struct list_head *list, blk_insert_t flags)
{
	struct cfq_meta_data *cmd = hctx->sched_data;
	u64 now = 0;

	spin_lock_irq(&cmd->lock);
	cfq_device_read(cmd);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);

		list_del_init(&rq->queuelist);
		/*
		 * blk-mq stamps every request it allocates for an elevator
		 * (start_time_ns): its insert time as far as we can tell,
		 * without reading the clock again.  A requeued request's
		 * older stamp is clamped by cfq_clock().
		 */
		now = cfq_clock(cmd, rq->start_time_ns);
		cfq_insert_request(cmd, rq, flags, now);
	}
	WRITE_ONCE(cmd->waiting, false);
	WRITE_ONCE(cmd->clock_task, current);
	cfq_dispatch_ahead(cmd, now);
	spin_unlock_irq(&cmd->lock);
}

/* @ioc's lookup hint if it is a live io_cq of @q, else NULL; under RCU. */
static struct io_cq *cfq_icq_hint(struct io_context *ioc,
				  struct request_queue *q)
{
	struct io_cq *icq = rcu_dereference(ioc->icq_hint);

	if (icq && icq->q == q && !(icq->flags & ICQ_DESTROYED))
		return icq;
	return NULL;
}

/*
 * The submitter's io_cq for @q with a reference on its io_context, as
 * ioc_find_get_icq() gives it, without q->queue_lock in the common case:
 * the io_context's lookup hint already points at it.  The hint is read
 * under RCU; the icq stays valid afterwards because current holds its own
 * io_context (so it is not released) and the queue cannot be torn down
 * (ioc_clear_queue() runs on a frozen queue, and we allocate a request).
 */
static struct io_cq *cfq_find_get_icq(struct request_queue *q)
{
	struct io_context *ioc = current->io_context;
	struct io_cq *icq;

	if (ioc) {
		rcu_read_lock();
		icq = cfq_icq_hint(ioc, q);
		if (icq) {
			/* get_io_context() is private to blk-ioc.c */
			atomic_long_inc(&ioc->refcount);
			rcu_read_unlock();
			return icq;
		}
		rcu_read_unlock();
	}
	return ioc_find_get_icq(q);
}

/*
 * Can a task of @cfqd queue one more sync request?  Without the lock.  Its
 * group's requests count from insertion to their end, and before that
 * from the gate to their tag (cfq_tag_gate()).
 */
static bool cfq_gate_open(struct cfq_data *cfqd)
{
	return !READ_ONCE(cfqd->linked) ||
	       cfq_group_tags(cfqd) < READ_ONCE(cfqd->tag_limit);
}

/* Drop a group reference taken without the lock. */
static void cfq_group_put_unlocked(struct cfq_meta_data *cmd,
				   struct cfq_data *cfqd)
{
	unsigned long flags;

	if (refcount_dec_not_one(&cfqd->ref))
		return;
	spin_lock_irqsave(&cmd->lock, flags);
	cfq_group_put(cmd, cfqd);
	spin_unlock_irqrestore(&cmd->lock, flags);
}

/* Let go of a place reserved at @cfqd's gate (NULL: none) and its ref. */
static void cfq_gate_release(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	if (!cfqd)
		return;
	atomic_dec(&cfqd->tags_pending);
	cfq_group_put_unlocked(cmd, cfqd);
}

/*
 * The request a reservation was made for has its tag (prepare_request),
 * or the task left (exit_icq): from here on, insertion counts it.
 */
static void cfq_gate_unreserve(struct cfq_meta_data *cmd,
			       struct cfq_io_cq *cic)
{
	cfq_gate_release(cmd, xchg(&cic->gate_cfqd, NULL));
}

/*
 * Wait, first come first served, until @cfqd holds fewer sync requests
 * than its part of the scheduler tags.  Whoever passes wakes the next if
 * there is room for it too.  A group waits only while it has
 * requests on the way, here or in the driver, whose completions wake its
 * waiters (cfq_tags_put()); a missed wake-up costs a poll interval.
 */
static void cfq_gate_wait(struct cfq_meta_data *cmd, struct cfq_data *cfqd)
{
	struct wait_queue_entry wait;
	bool woken = false;

	atomic_long_inc(&cmd->gate_waits);
	init_waitqueue_entry(&wait, current);
	add_wait_queue_exclusive(&cfqd->gate_wq, &wait);
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		/*
		 * In order: wake-ups go to the first in line (or the next,
		 * if it runs already); a poll lets only the first through.
		 */
		if ((woken || list_first_entry(&cfqd->gate_wq.head,
					       struct wait_queue_entry,
					       entry) == &wait) &&
		    cfq_gate_open(cfqd))
			break;
		woken = io_schedule_timeout(CFQ_GATE_POLL) > 0;
	}
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(&cfqd->gate_wq, &wait);
	/* The next in line may pass too (the limit may have grown). */
	if (waitqueue_active(&cfqd->gate_wq) && cfq_gate_open(cfqd))
		wake_up(&cfqd->gate_wq);
}

/*
 * The gate of the current task's group: wait for room if there is none
 * or others wait.  While tags are @scarce, or after a wait, reserve a
 * place for the request about to take a tag, which prepare_request hands
 * over: a task waiting for a tag then counts as one of its group's.  A
 * task that has no io_cq here yet (its first request) passes.  Not
 * inlined, so that limit_depth stays small while no gate is used.
 */
static noinline void cfq_tag_gate(struct cfq_meta_data *cmd,
				  struct request_queue *q, bool scarce)
{
	struct io_context *ioc = current->io_context;
	struct cfq_data *cfqd;
	struct io_cq *icq;
	bool wait;

	rcu_read_lock();
	cfqd = cfq_group_find(cmd, cfq_cgroup_current());
	if (!cfqd)
		goto out;
	/*
	 * Nobody waiting and room: pass.  Racing with a waiter that just
	 * queued itself is harmless; it checks the gate again.
	 */
	wait = waitqueue_active(&cfqd->gate_wq) || !cfq_gate_open(cfqd);
	if (!wait && !scarce)
		goto out;
	icq = ioc ? cfq_icq_hint(ioc, q) : NULL;
	if (!icq || !refcount_inc_not_zero(&cfqd->ref))
		goto out;
	rcu_read_unlock();

	if (wait)
		cfq_gate_wait(cmd, cfqd);
	atomic_inc(&cfqd->tags_pending);
	/*
	 * The icq stays: current holds its io_context, q is not frozen.  A
	 * reservation no request took (cannot happen) is let go.
	 */
	cfq_gate_release(cmd, xchg(&icq_to_cic(icq)->gate_cfqd, cfqd));
	return;
out:
	rcu_read_unlock();
}

/*
 * Called from blk_mq_rq_ctx_init() in the submitter's context, before the
 * bio is attached.  Queue assignment waits for insertion (see BFQ's note
 * on bfq_init_rq()): a prepared request can still be freed unseen.
 */
static void cfq_prepare_request(struct request *rq)
{
	rq->elv.icq = cfq_find_get_icq(rq->q);
	if (rq->elv.icq && READ_ONCE(icq_to_cic(rq->elv.icq)->gate_cfqd))
		cfq_gate_unreserve(rq->q->elevator->elevator_data,
				   icq_to_cic(rq->elv.icq));
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = cfq_cgroup_get_current();
}

/*
 * Called from blk_mq_free_request() for every request prepared above, in
 * any context (completion IRQ included).
 */
static void cfq_finish_request(struct request *rq)
{
	struct cfq_meta_data *cmd = rq->q->elevator->elevator_data;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	unsigned long flags;

	if (cfqq) {
		WARN_ON_ONCE(!list_empty(&rq->queuelist));
		if (rq_is_sync(rq))
			cfq_tags_put(cfqq->cfqd);
		/* Only the last reference needs the lock (to free). */
		if (!refcount_dec_not_one(&cfqq->ref)) {
			spin_lock_irqsave(&cmd->lock, flags);
			cfq_queue_put(cmd, cfqq);
			spin_unlock_irqrestore(&cmd->lock, flags);
		}
		rq->elv.priv[0] = NULL;
	} else {
		cfq_cgroup_put(RQ_CSS(rq));	/* never inserted */
	}
	rq->elv.priv[1] = NULL;
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
}

/* ---------------------------------------------------------------------
 * Completion
 */

/* Arm the idle timer if the active queue or group is worth waiting for. */
static void cfq_completion_idle(struct cfq_meta_data *cmd,
				struct cfq_queue *cfqq, u64 now)
{
	struct cfq_data *cfqd = cfqq->cfqd;
	u64 idle;

	if (cmd->active != cfqd || cmd->idling != CFQ_IDLE_NONE)
		return;
	if (cfqd->active_queue == cfqq && !cfqq->queued && !cfqq->dispatched &&
	    cfq_should_idle(cmd, cfqq)) {
		idle = cfq_queue_idle_for(cmd, cfqq,
					  cfq_group_clock(cmd, cfqd, now));
		if (idle) {
			cfq_idle_arm(cmd, CFQ_IDLE_QUEUE, now, idle);
			return;
		}
	}
	if (!cfqd->nr_queued && !cfqd->in_driver &&
	    test_bit(CFQQ_SYNC, &cfqq->flags) && cfqq->cic &&
	    cfq_group_should_idle(cmd, cfqd))
		cfq_idle_arm(cmd, CFQ_IDLE_GROUP, now,
			     cfq_tun_ns(cmd, CFQ_GROUP_IDLE));
}

/*
 * A completion may end a wait (cfq_end_wait()).  In I/O-count mode, with
 * the device not full and an ahead slot free, the dispatch the kick would
 * start is made here instead, under this hold of the lock, as at insert:
 * a request found goes to cmd->ahead[] for the queue run to take; none
 * found leaves the scheduler waiting, and nothing is run only to learn
 * that (a queue over its share beside a reader, at every one of the
 * reader's completions).  True if the caller should run a hardware queue.
 */
static bool cfq_completion_kick(struct cfq_meta_data *cmd, u64 now)
{
	lockdep_assert_held(&cmd->lock);

	if (!cmd->waiting || !cmd->nr_queued)
		return false;
	if (!cfq_may_choose_ahead(cmd))
		return cfq_end_wait(cmd);
	WRITE_ONCE(cmd->waiting, false);
	/* Nothing chosen and not waiting: cfq_dispatch() could not wait. */
	if (!cfq_dispatch_ahead(cmd, now) && cmd->waiting)
		return false;
	cmd->events[CFQ_EV_KICK]++;
	return true;
}

/*
 * A request of @cfqd left the driver for good (completed, or requeued
 * past us): a removed group with nothing left is let go now.
 */
static void cfq_group_left(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 now)
{
	if (cfqd != &cmd->root && !cfqd->nr_queued && !cfqd->in_driver)
		cfq_group_done(cmd, cfqd, now);
}

/*
 * Called from blk_mq_end_request() -> blk_mq_sched_completed_request(),
 * in any context (hard IRQ for timer-driven devices); @now is the
 * completion time.
 */
static void cfq_completed_request(struct request *rq, u64 now)
{
	struct cfq_meta_data *cmd = rq->q->elevator->elevator_data;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	unsigned long state = cfq_rq_state(rq);
	bool write = op_is_write(req_op(rq));
	struct cfq_data *cfqd;
	unsigned long flags;
	u64 service, charge;
	bool kick;

	/* Bypassed us: a flush sequence, or dispatched again after requeue. */
	if (!cfqq || !(state & CFQ_RQ_IN_DRIVER))
		return;

	spin_lock_irqsave(&cmd->lock, flags);
	now = cfq_clock(cmd, now);
	cfqd = cfqq->cfqd;
	if (!(state & CFQ_RQ_IDLE_CLASS))
		cmd->last_nonidle = now;
	service = now - max(rq->fifo_time, cmd->last_completion);
	cmd->last_completion = now;
	if (cfqd->stat)
		WRITE_ONCE(cfqd->stat->service_ns,
			   cfqd->stat->service_ns + service);
	if (cfq_iops_mode(cmd)) {
		service = CFQ_IOPS_CHARGE_NS;
	} else {
		bool cached = write && blk_queue_write_cache(cmd->queue);

		/* A write into a disk's cache says nothing of its seeks. */
		if (!cached && (cmd->in_driver == 1 || cfq_hw_depth(cmd) == 1))
			cfq_seek_sample(cmd, state, service);
		if (write && !cached) {
			charge = service;	/* it went to the media */
		} else {
			charge = cfq_media_charge(&cmd->media, write,
						  cfq_hw_depth(cmd) == 1,
						  cfq_rq_svc_size(state),
						  service);
		}
		if (charge > service)
			cfq_group_advance(cmd, cfqd, charge - service);
		if (cached) {
			cmd->flush_dirty = true;
			/* Not one let into the served group's gap. */
			if (cmd->active == cfqd)
				cmd->dirty_group = cfqd;
			if (charge > service)
				cmd->flush_writes++;
		}
		if (cmd->flush_dirty)
			cmd->flush_owed += (s64)charge - (s64)service;
		if (!write)
			cfqd->read_stamp = now;
		service = charge;
	}
	cfq_account_done(cmd, rq);
	if (rq_is_sync(rq) && !cfqd->sync_in_driver)
		cfqd->sync_done = now;
	cfq_group_charge(cmd, cfqd, service, state & CFQ_RQ_SPARE);

	cfqq->last_end = now;
	cfq_completion_idle(cmd, cfqq, now);
	cfq_group_left(cmd, cfqd, now);
	kick = cfq_completion_kick(cmd, now);
	spin_unlock_irqrestore(&cmd->lock, flags);

	/*
	 * One hardware queue is enough: any of them takes the requests of
	 * all (QUEUE_FLAG_SQ_SCHED), and blk_mq_run_hw_queues() would look
	 * up every hardware context only to run one.
	 */
	if (kick)
		blk_mq_run_hw_queue(rq->mq_hctx, true);
}

/*
 * Called from blk_mq_requeue_request() for a request we dispatched, in
 * any context.  It leaves the driver: it is inserted again (keeping its
 * queue), or, prepared by the driver already (RQF_DONTPREP), sent to the
 * driver directly, in which case we never see it again (its completion
 * finds it not in our accounts and is ignored): for its group, it has
 * left.
 */
static void cfq_requeue_request(struct request *rq)
{
	struct cfq_meta_data *cmd = rq->q->elevator->elevator_data;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	unsigned long flags;

	if (!cfqq || !(cfq_rq_state(rq) & CFQ_RQ_IN_DRIVER))
		return;
	spin_lock_irqsave(&cmd->lock, flags);
	cfq_device_read(cmd);
	cfq_log_cfqq(cmd, cfqq, "requeue%s",
		     rq->rq_flags & RQF_DONTPREP ? ", past us" : "");
	cfq_account_done(cmd, rq);
	if (rq->rq_flags & RQF_DONTPREP) {
		cmd->events[CFQ_EV_REQUEUE_PAST]++;
		cfq_group_left(cmd, cfqq->cfqd,
			       cfq_clock(cmd, ktime_get_ns()));
	} else {
		cfq_stat_io(cfqq->cfqd, rq, -1);	/* counted again */
	}
	WRITE_ONCE(cmd->waiting, false);
	spin_unlock_irqrestore(&cmd->lock, flags);
}

/* The idle timer: hard IRQ.  Never dispatches; ends the wait and kicks. */
static enum hrtimer_restart cfq_idle_timer_fn(struct hrtimer *timer)
{
	struct cfq_meta_data *cmd = container_of(timer, struct cfq_meta_data,
						 idle_timer);
	enum cfq_idle_kind kind;
	struct cfq_data *cfqd;
	unsigned long flags;
	bool kick = false;
	u64 now;

	spin_lock_irqsave(&cmd->lock, flags);
	cfq_device_read(cmd);
	now = cfq_clock(cmd, ktime_get_ns());
	if (cmd->idling == CFQ_IDLE_NONE || now < cmd->idle_deadline)
		goto out;	/* cancelled or re-armed meanwhile */
	cfq_log(cmd, "idle %d expired", cmd->idling);
	cmd->events[CFQ_EV_IDLE_EXPIRE]++;
	cfqd = cmd->active;
	kind = cmd->idling;
	cfq_idle_end(cmd, now);
	switch (kind) {
	case CFQ_IDLE_QUEUE:
		if (cfqd) {
			cfq_slice_expired(cmd, cfqd, now);
			/* No second wait for the group's sake. */
			if (!cfqd->nr_queued) {
				if (cfq_writeback_flush(cmd, cfqd, now))
					goto out;
				cfq_group_expire(cmd, now);
			}
		}
		break;
	case CFQ_IDLE_GROUP:
		if (cfqd && cfq_writeback_flush(cmd, cfqd, now))
			goto out;
		cfq_group_expire(cmd, now);
		break;
	case CFQ_IDLE_FLUSH:
		cfq_group_expire(cmd, now);
		break;
	default:
		break;
	}
	WRITE_ONCE(cmd->waiting, false);
	kick = cmd->nr_queued;
	if (kick)
		cmd->events[CFQ_EV_KICK]++;
out:
	spin_unlock_irqrestore(&cmd->lock, flags);
	if (kick)
		blk_mq_run_hw_queues(cmd->queue, true);
	return HRTIMER_NORESTART;
}

/* ---------------------------------------------------------------------
 * Merging
 */

/*
 * cfq_bio_merge() with requests queued.  A bio may only join requests of
 * the queue its own request would go to; find that queue first
 * (queue_lock, then ours).  Not inlined: the common early return of the
 * caller then costs a few instructions, not this function's frame.
 */
static noinline bool cfq_bio_merge_queued(struct cfq_meta_data *cmd,
					  struct request_queue *q,
					  struct bio *bio,
					  unsigned int nr_segs)
{
	struct cgroup_subsys_state *css = NULL;
	struct cfq_queue *cfqq = NULL;
	struct request *free = NULL;
	struct cfq_io_cq *cic = NULL;
	struct io_cq *icq;
	unsigned long flags;
	bool ret;

	/*
	 * The io_cq: usually the io_context's lookup hint, valid under RCU
	 * (an icq is freed after an RCU grace period, and once exited its
	 * sync_cfqq, read under our lock below, is NULL); else the locked
	 * lookup.
	 */
	rcu_read_lock();
	icq = cfq_icq_hint(current->io_context, q);
	if (!icq) {
		spin_lock_irqsave(&q->queue_lock, flags);
		icq = ioc_lookup_icq(q);
		spin_unlock_irqrestore(&q->queue_lock, flags);
	}
	if (icq)
		cic = icq_to_cic(icq);
	/*
	 * A sync bio joins only its own task's queue: none queued, no
	 * merge, and no need for the lock (racy as above).
	 */
	if (op_is_sync(bio->bi_opf) &&
	    (!cic || !READ_ONCE(cic->sync_queued))) {
		rcu_read_unlock();
		return false;
	}
	if (!op_is_sync(bio->bi_opf))
		css = cfq_cgroup_on_dfl() ? cfq_cgroup_get_bio(bio) :
					    cfq_cgroup_get_current();

	spin_lock_irq(&cmd->lock);
	cfq_device_read(cmd);
	if (op_is_sync(bio->bi_opf)) {
		if (cic)
			cfqq = cic->sync_cfqq;
	} else {
		struct cfq_data *cfqd = cfq_group_lookup(cmd, css, false);
		enum cfq_class ioclass;
		unsigned int level;

		cfq_rq_prio(bio_prio(bio), task_nice(current), &ioclass,
			    &level);
		if (cfqd)
			cfqq = *cfq_async_slot(cfqd, ioclass, level);
	}
	ret = false;
	if (cfqq) {
		cmd->merge_cfqq = cfqq;
		ret = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
		cmd->merge_cfqq = NULL;
	}
	spin_unlock_irq(&cmd->lock);
	rcu_read_unlock();

	cfq_cgroup_put(css);
	if (free)
		blk_mq_free_request(free);
	return ret;
}

/*
 * Called from blk_mq_submit_bio() -> blk_mq_sched_bio_merge() in the
 * submitter's context.
 */
static bool cfq_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct cfq_meta_data *cmd = q->elevator->elevator_data;

	/*
	 * Nothing queued, nothing to join: skip the lock.  Racy; a request
	 * inserted meanwhile costs at worst a missed merge.  This is the
	 * common case for a task with one request in flight at a time.
	 */
	if (!current->io_context || !READ_ONCE(cmd->nr_queued))
		return false;
	return cfq_bio_merge_queued(cmd, q, bio, nr_segs);
}

/* Called from elv_merge() under our lock (bio_merge above). */
static int cfq_request_merge(struct request_queue *q, struct request **req,
			     struct bio *bio)
{
	struct cfq_meta_data *cmd = q->elevator->elevator_data;
	struct request *rq;

	lockdep_assert_held(&cmd->lock);

	if (!cmd->merge_cfqq)
		return ELEVATOR_NO_MERGE;
	rq = elv_rb_find(&cmd->merge_cfqq->sort_list, bio_end_sector(bio));
	if (rq && elv_bio_merge_ok(rq, bio)) {
		*req = rq;
		return ELEVATOR_FRONT_MERGE;
	}
	return ELEVATOR_NO_MERGE;
}

/* Called from elv_bio_merge_ok() under our lock: same queue only. */
static bool cfq_allow_merge(struct request_queue *q, struct request *rq,
			    struct bio *bio)
{
	struct cfq_meta_data *cmd = q->elevator->elevator_data;

	lockdep_assert_held(&cmd->lock);
	return RQ_CFQQ(rq) && RQ_CFQQ(rq) == cmd->merge_cfqq;
}

/* Called after a bio joined @rq (elv_merged_request()), under our lock. */
static void cfq_request_merged(struct request_queue *q, struct request *rq,
			       enum elv_merge type)
{
	struct cfq_meta_data *cmd = q->elevator->elevator_data;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	lockdep_assert_held(&cmd->lock);

	if (type != ELEVATOR_FRONT_MERGE || !cfqq)
		return;
	/* Its start sector moved: re-sort it. */
	elv_rb_del(&cfqq->sort_list, rq);
	elv_rb_add(&cfqq->sort_list, rq);
	cfq_update_next_rq(cmd, cfqq, rq);
}

/*
 * Called from elv_merge_requests() under our lock: @next was merged into
 * @rq and will be freed.  @rq inherits an earlier deadline of @next's.
 */
static void cfq_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct cfq_meta_data *cmd = q->elevator->elevator_data;

	lockdep_assert_held(&cmd->lock);

	if (RQ_CFQQ(rq) == RQ_CFQQ(next) &&
	    (s64)(next->fifo_time - rq->fifo_time) < 0) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	if (RQ_CFQQ(next))
		cfq_remove_rq(cmd, next);
}

/* ---------------------------------------------------------------------
 * io_context and tag depth
 */

/*
 * Called when an io_context and this queue part: from ioc_exit_icqs()
 * (task exit) or ioc_clear_queue() (elevator exit), with ioc->lock held
 * and IRQs off.
 */
static void cfq_exit_icq(struct io_cq *icq)
{
	struct cfq_meta_data *cmd = icq->q->elevator->elevator_data;
	struct cfq_io_cq *cic = icq_to_cic(icq);
	unsigned long flags;

	cfq_gate_unreserve(cmd, cic);
	spin_lock_irqsave(&cmd->lock, flags);
	cfq_device_read(cmd);
	cic->exited = true;
	if (cic->sync_cfqq) {
		cic->sync_cfqq->cic = NULL;
		cfq_queue_put(cmd, cic->sync_cfqq);
		cic->sync_cfqq = NULL;
		WRITE_ONCE(cic->sync_queued, 0);
	}
	spin_unlock_irqrestore(&cmd->lock, flags);
}

/*
 * Called from blk_mq_get_new_requests() before a tag is taken, in the
 * submitter's context, without our lock; it may sleep unless the
 * allocation must not.  A request waits in the scheduler holding a tag,
 * so whoever holds the tags decides what the scheduler can choose from:
 * async requests and writes get 3/4 of them, so they cannot starve sync
 * reads; and (group_depth) while two groups or more hold tags, the sync
 * requests of a group may hold the part of them its weight gives it
 * (cfq_group_tag_limits()): its tasks wait for more at the group's own
 * gate, in order, instead of in the tag allocator, whose wake-up order
 * would decide which group can queue.
 */
static void cfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct cfq_meta_data *cmd = data->q->elevator->elevator_data;

	if (!op_is_sync(opf) || op_is_write(opf))
		data->shallow_depth =
			cfq_async_depth(READ_ONCE(cmd->hctx_depth));
	if (op_is_sync(opf) && !(data->flags & BLK_MQ_REQ_NOWAIT) &&
	    READ_ONCE(cmd->gating))
		cfq_tag_gate(cmd, data->q,
			     cfq_tags_scarce(cmd, READ_ONCE(cmd->depth)));
}

/*
 * Called from blk_mq_update_nr_requests() when nr_requests changes, and
 * from init_hctx (every hardware queue has its scheduler tags by then).
 * shallow_depth counts against one hardware queue's tags (hctx_depth);
 * what the scheduler holds (nr_queued + in_driver) is counted over the
 * whole device, so it is compared with the tags of every hardware queue
 * but the polled ones, which only polled I/O can use (depth), or of the
 * one set they all share.  Those hardware queues (nr_hw), or the one
 * shared set, each take the device's queue_depth requests at once.
 */
static void cfq_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct cfq_meta_data *cmd = q->elevator->elevator_data;
	struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;
	struct blk_mq_hw_ctx *h;
	unsigned int depth = 0, nr_hw = 0;
	unsigned long i;

	if (blk_mq_is_shared_tags(q->tag_set->flags)) {
		depth = bt->sb.depth;
		nr_hw = 1;
	} else {
		queue_for_each_hw_ctx(q, h, i)
			if (h->sched_tags && h->type != HCTX_TYPE_POLL) {
				depth += h->sched_tags->bitmap_tags.sb.depth;
				nr_hw++;
			}
	}
	WRITE_ONCE(cmd->nr_hw, nr_hw);
	WRITE_ONCE(cmd->keep_scale, cfq_hw_depth_now(cmd));
	WRITE_ONCE(cmd->hctx_depth, bt->sb.depth);
	WRITE_ONCE(cmd->depth, depth);
	sbitmap_queue_min_shallow_depth(bt, 1);
}

/*
 * Called from blk_mq_init_sched() for each hardware queue.  Its sched_data
 * points at the device's state: the hooks that get a hardware queue find
 * it there in one load.
 */
static int cfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	hctx->sched_data = hctx->queue->elevator->elevator_data;
	cfq_depth_updated(hctx);
	return 0;
}

static void cfq_exit_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	hctx->sched_data = NULL;
}

/* ---------------------------------------------------------------------
 * Setup and teardown
 */

/* Every cfq device, for cgroup removal to reach. */
static LIST_HEAD(cfq_devices);
static DEFINE_MUTEX(cfq_devices_lock);

#ifdef CONFIG_CFQ_CGROUP
/*
 * Called from the cfq cgroup's css_offline, in process context with
 * cgroup_mutex held, after @css was marked dying.  On every device, the
 * group of @css, if it has nothing queued or in flight, is let go now (it
 * would otherwise keep its cgroup pinned); one with I/O left is let go
 * when its last request leaves the driver (cfq_group_left()).  A group
 * still holding the turn with nothing left (the device went idle during
 * its turn, or others wait while it idles) ends the turn, which reaps it;
 * whoever waited is then dispatched.
 */
void cfq_sched_cgroup_offline(struct cgroup_subsys_state *css)
{
	struct cfq_meta_data *cmd;
	struct cfq_data *cfqd;
	bool kick;

	mutex_lock(&cfq_devices_lock);
	list_for_each_entry(cmd, &cfq_devices, device_node) {
		spin_lock_irq(&cmd->lock);
		cfq_device_read(cmd);
		cfqd = cfq_group_lookup(cmd, css, false);
		kick = false;
		if (cfqd)
			cfq_group_done(cmd, cfqd,
				       cfq_clock(cmd, ktime_get_ns()));
		if (cfqd && cmd->active != cfqd)
			kick = cfq_end_wait(cmd);
		spin_unlock_irq(&cmd->lock);
		if (kick)
			blk_mq_run_hw_queues(cmd->queue, true);
	}
	mutex_unlock(&cfq_devices_lock);
}
#endif

static int cfq_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct cfq_meta_data *cmd;
	struct elevator_queue *eq;
	int t;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	cmd = kzalloc_node(sizeof(*cmd), GFP_KERNEL, q->node);
	if (!cmd) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	eq->elevator_data = cmd;

	spin_lock_init(&cmd->lock);
	cmd->queue = q;
	cmd->dev = disk_devt(q->disk);
	INIT_LIST_HEAD(&cmd->dispatch);
	INIT_LIST_HEAD(&cmd->groups);
	xa_init(&cmd->group_xa);
	for (t = 0; t < CFQ_NR_TUNABLES; t++)
		cfq_tun_set(cmd, t, cfq_tunables[t].def);
	cmd->last_nonidle = ktime_get_ns();
	hrtimer_init(&cmd->idle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cmd->idle_timer.function = cfq_idle_timer_fn;
	spin_lock_irq(&cmd->lock);	/* for the helpers' assertions */
	cfq_device_read(cmd);
	cfq_group_init(cmd, &cmd->root, NULL, NULL);
	spin_unlock_irq(&cmd->lock);

	mutex_lock(&cfq_devices_lock);
	list_add(&cmd->device_node, &cfq_devices);
	mutex_unlock(&cfq_devices_lock);

	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	return 0;
}

/*
 * Called from elevator_exit() after the queue was frozen and drained and
 * every icq exited: no request and no sync queue reference is left.
 */
static void cfq_exit_sched(struct elevator_queue *e)
{
	struct cfq_meta_data *cmd = e->elevator_data;
	struct cfq_data *cfqd, *tmp;
	unsigned int leaked;

	mutex_lock(&cfq_devices_lock);
	list_del(&cmd->device_node);
	mutex_unlock(&cfq_devices_lock);
	hrtimer_cancel(&cmd->idle_timer);
	cfq_flush_forget(cmd);

	spin_lock_irq(&cmd->lock);
	WARN(cmd->nr_queued || cmd->in_driver || cfq_has_ahead(cmd) ||
	     !list_empty(&cmd->dispatch) ||
	     atomic_read(&cmd->root.tags_held) ||
	     atomic_read(&cmd->root.tags_pending),
	     "cfq: exit with %u queued, %u in driver, %d+%d tags held\n",
	     cmd->nr_queued, cmd->in_driver,
	     atomic_read(&cmd->root.tags_held),
	     atomic_read(&cmd->root.tags_pending));
	cmd->idling = CFQ_IDLE_NONE;
	cfq_group_expire(cmd, 0);
	/* Children were made after their parents: unlink them first. */
	list_for_each_entry_safe_reverse(cfqd, tmp, &cmd->groups, node)
		cfq_group_unlink(cmd, cfqd);
	leaked = list_count_nodes(&cmd->root.queues);
	WARN(leaked || cmd->nr_groups != 1 ||
	     refcount_read(&cmd->root.ref) != 1 || !xa_empty(&cmd->group_xa),
	     "cfq: exit leaks %u queues, %u groups\n", leaked,
	     cmd->nr_groups - 1);
	spin_unlock_irq(&cmd->lock);
	xa_destroy(&cmd->group_xa);

	kfree(cmd);
}

/* ---------------------------------------------------------------------
 * sysfs: /sys/block/X/queue/iosched/
 */

static ssize_t cfq_tunable_show(struct elevator_queue *e, char *page,
				enum cfq_tunable t)
{
	struct cfq_meta_data *cmd = e->elevator_data;

	return sysfs_emit(page, "%u\n", READ_ONCE(cmd->tun[t]));
}

/* Malformed or out-of-range input: -EINVAL, and nothing changes. */
static ssize_t cfq_tunable_store(struct elevator_queue *e, const char *page,
				 size_t count, enum cfq_tunable t)
{
	struct cfq_meta_data *cmd = e->elevator_data;
	unsigned int val;

	if (kstrtouint(page, 10, &val) || val < cfq_tunables[t].min ||
	    val > cfq_tunables[t].max)
		return -EINVAL;
	spin_lock_irq(&cmd->lock);
	cfq_tun_set(cmd, t, val);
	cfq_device_read(cmd);
	WRITE_ONCE(cmd->waiting, false);
	spin_unlock_irq(&cmd->lock);
	blk_mq_run_hw_queues(cmd->queue, true);
	return count;
}

#define CFQ_ATTR(idx, name)						\
static ssize_t cfq_##name##_show(struct elevator_queue *e, char *page) \
{									\
	return cfq_tunable_show(e, page, idx);				\
}									\
static ssize_t cfq_##name##_store(struct elevator_queue *e,		\
				  const char *page, size_t count)	\
{									\
	return cfq_tunable_store(e, page, count, idx);			\
}
CFQ_ATTR(CFQ_QUANTUM, quantum)
CFQ_ATTR(CFQ_FIFO_EXPIRE_SYNC, fifo_expire_sync)
CFQ_ATTR(CFQ_FIFO_EXPIRE_ASYNC, fifo_expire_async)
CFQ_ATTR(CFQ_BACK_SEEK_MAX, back_seek_max)
CFQ_ATTR(CFQ_BACK_SEEK_PENALTY, back_seek_penalty)
CFQ_ATTR(CFQ_SLICE_SYNC, slice_sync)
CFQ_ATTR(CFQ_SLICE_ASYNC, slice_async)
CFQ_ATTR(CFQ_SLICE_ASYNC_RQ, slice_async_rq)
CFQ_ATTR(CFQ_SLICE_IDLE, slice_idle)
CFQ_ATTR(CFQ_GROUP_IDLE, group_idle)
CFQ_ATTR(CFQ_LOW_LATENCY, low_latency)
CFQ_ATTR(CFQ_TARGET_LATENCY, target_latency)
CFQ_ATTR(CFQ_GROUP_SLICE, group_slice)
CFQ_ATTR(CFQ_SERVICE_MODE, service_mode)
CFQ_ATTR(CFQ_GROUP_DEPTH, group_depth)
CFQ_ATTR(CFQ_EQUAL_NOIDLE, equal_noidle)
CFQ_ATTR(CFQ_FILL_SLOTS, fill_slots)
CFQ_ATTR(CFQ_WRITEBACK_FLUSH, writeback_flush)
#undef CFQ_ATTR

#define CFQ_ATTR_ENTRY(name) \
	__ATTR(name, 0644, cfq_##name##_show, cfq_##name##_store)

static struct elv_fs_entry cfq_attrs[] = {
	CFQ_ATTR_ENTRY(quantum),
	CFQ_ATTR_ENTRY(fifo_expire_sync),
	CFQ_ATTR_ENTRY(fifo_expire_async),
	CFQ_ATTR_ENTRY(back_seek_max),
	CFQ_ATTR_ENTRY(back_seek_penalty),
	CFQ_ATTR_ENTRY(slice_sync),
	CFQ_ATTR_ENTRY(slice_async),
	CFQ_ATTR_ENTRY(slice_async_rq),
	CFQ_ATTR_ENTRY(slice_idle),
	CFQ_ATTR_ENTRY(group_idle),
	CFQ_ATTR_ENTRY(low_latency),
	CFQ_ATTR_ENTRY(target_latency),
	CFQ_ATTR_ENTRY(group_slice),
	CFQ_ATTR_ENTRY(service_mode),
	CFQ_ATTR_ENTRY(group_depth),
	CFQ_ATTR_ENTRY(equal_noidle),
	CFQ_ATTR_ENTRY(fill_slots),
	CFQ_ATTR_ENTRY(writeback_flush),
	__ATTR_NULL
};

/* ---------------------------------------------------------------------
 * debugfs: /sys/kernel/debug/block/X/sched/
 */
#ifdef CONFIG_BLK_DEBUG_FS

static const char *const cfq_idle_names[] = {
	[CFQ_IDLE_NONE]		= "none",
	[CFQ_IDLE_QUEUE]	= "queue",
	[CFQ_IDLE_GROUP]	= "group",
	[CFQ_IDLE_CLASS_DELAY]	= "idle-class-delay",
	[CFQ_IDLE_FLUSH]	= "flush",
};

static int cfq_state_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_meta_data *cmd = q->elevator->elevator_data;
	struct cfq_queue *cfqq;

	spin_lock_irq(&cmd->lock);
	seq_printf(m, "mode %s\n", cfq_iops_mode_now(cmd) ? "iops" : "time");
	seq_printf(m, "active_group %s\n",
		   cmd->active ? cmd->active->name : "-");
	cfqq = cmd->active ? cmd->active->active_queue : NULL;
	if (cfqq)
		seq_printf(m, "active_queue pid %d %s class %c level %u queued %u dispatched %u\n",
			   cfqq->pid,
			   test_bit(CFQQ_SYNC, &cfqq->flags) ? "sync" : "async",
			   "RBI"[cfqq->ioclass], cfqq->ioprio, cfqq->queued,
			   cfqq->dispatched);
	else
		seq_puts(m, "active_queue -\n");
	seq_printf(m, "idling %s\nwaiting %d\nqueued %u\nin_driver %u\n",
		   cfq_idle_names[cmd->idling], cmd->waiting, cmd->nr_queued,
		   cmd->in_driver);
	seq_printf(m, "sync_in_driver %u\nnonidle_in_driver %u\nnonidle_ago_ms %llu\n",
		   cmd->sync_in_driver, cmd->nonidle_in_driver,
		   div_u64(ktime_get_ns() - cmd->last_nonidle, NSEC_PER_MSEC));
	seq_printf(m, "groups %u\nmin_vdisktime %llu\ndepth %u\nhw_depth %u\nmax_weight %u\ngate_waits %ld\n",
		   cmd->nr_groups, cmd->root.sched.min_vdisktime, cmd->depth,
		   cfq_hw_depth_now(cmd), cmd->root.sched.max_weight,
		   atomic_long_read(&cmd->gate_waits));
	seq_printf(m, "service_us near %llu/%u far %llu/%u large near %llu/%u far %llu/%u seeks_free %d\n",
		   div_u64(cmd->svc_mean[CFQ_SVC_SMALL][CFQ_SEEK_NEAR],
			   NSEC_PER_USEC),
		   cmd->svc_samples[CFQ_SVC_SMALL][CFQ_SEEK_NEAR],
		   div_u64(cmd->svc_mean[CFQ_SVC_SMALL][CFQ_SEEK_FAR],
			   NSEC_PER_USEC),
		   cmd->svc_samples[CFQ_SVC_SMALL][CFQ_SEEK_FAR],
		   div_u64(cmd->svc_mean[CFQ_SVC_LARGE][CFQ_SEEK_NEAR],
			   NSEC_PER_USEC),
		   cmd->svc_samples[CFQ_SVC_LARGE][CFQ_SEEK_NEAR],
		   div_u64(cmd->svc_mean[CFQ_SVC_LARGE][CFQ_SEEK_FAR],
			   NSEC_PER_USEC),
		   cmd->svc_samples[CFQ_SVC_LARGE][CFQ_SEEK_FAR],
		   cfq_seeks_free(cmd->svc_mean, cmd->svc_samples));
	seq_printf(m, "read_us small %llu/%u large %llu/%u write_debt_us %llu write_price %d/%u\n",
		   div_u64(cmd->media.read_mean[CFQ_SVC_SMALL], NSEC_PER_USEC),
		   cmd->media.read_samples[CFQ_SVC_SMALL],
		   div_u64(cmd->media.read_mean[CFQ_SVC_LARGE], NSEC_PER_USEC),
		   cmd->media.read_samples[CFQ_SVC_LARGE],
		   div_u64(cmd->media.debt, NSEC_PER_USEC),
		   CFQ_MEDIA_SCALE_ONE + cmd->media.write_step,
		   CFQ_MEDIA_SCALE_ONE);
	spin_unlock_irq(&cmd->lock);
	return 0;
}

/* Where an entity is: waiting (on its level's tree), served, or idle. */
static const char *cfq_entity_where(const struct cfq_entity *e)
{
	if (e->in->sched.active == e)
		return "served";
	if (e->tree == &e->in->sched.tree)
		return "waiting";
	if (e->tree)
		return "waiting-idle";
	return e->busy ? "lost" : "idle";
}

/*
 * One line per queue with requests queued or in the driver, or served
 * (its group's active queue, which may be empty while cfq idles for its
 * next request): its group, task, class and level, counts, and its
 * fill_vt against its group's fill_min (concurrent service: negative is
 * owed).
 */
static int cfq_queues_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_meta_data *cmd = q->elevator->elevator_data;
	struct cfq_queue *cfqq;
	struct cfq_data *cfqd;

	spin_lock_irq(&cmd->lock);
	list_for_each_entry(cfqd, &cmd->groups, node)
		list_for_each_entry(cfqq, &cfqd->queues, group_node) {
			if (!cfqq->queued && !cfqq->dispatched &&
			    cfqd->active_queue != cfqq)
				continue;
			seq_printf(m, "%s pid %d %s %c%u queued %u in_driver %u dispatched %llu fill %lld fill_vt %llu%s\n",
				   cfqd->name, cfqq->pid,
				   test_bit(CFQQ_SYNC, &cfqq->flags) ?
				   "sync" : "async", "RBI"[cfqq->ioclass],
				   cfqq->ioprio, cfqq->queued, cfqq->dispatched,
				   cfqq->nr_dispatched,
				   (s64)(cfqq->fill_vt - cfqd->fill_min),
				   cfqq->fill_vt,
				   cfqd->active_queue == cfqq ? " active" : "");
		}
	spin_unlock_irq(&cmd->lock);
	return 0;
}

static int cfq_groups_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_meta_data *cmd = q->elevator->elevator_data;
	struct cfq_data *cfqd;

	spin_lock_irq(&cmd->lock);
	list_for_each_entry(cfqd, &cmd->groups, node) {
		seq_printf(m, "%s parent %s weight %u vdisktime %llu busy %d queued %u in_driver %u busy_rt %u busy_be %u busy_idle %u dispatched %llu service %llu turns %llu",
			   cfqd->name, cfqd->parent ? cfqd->parent->name : "-",
			   cfq_group_weight(cfqd), cfq_group_key(cfqd),
			   !!cfqd->nr_queued, cfqd->nr_queued, cfqd->in_driver,
			   cfqd->busy[CFQ_CLASS_RT], cfqd->busy[CFQ_CLASS_BE],
			   cfqd->busy[CFQ_CLASS_IDLE], cfqd->dispatched,
			   cfqd->service, cfqd->turns);
		seq_printf(m, " think_ns %llu think_samples %u",
			   cfqd->think_mean, cfqd->think_samples);
		seq_printf(m, " own %s", cfq_entity_where(&cfqd->self));
		if (cfqd->parent)
			seq_printf(m, " in_parent %s",
				   cfq_entity_where(&cfqd->ent));
		seq_printf(m, " children_busy %u tags %d+%d/%u\n",
			   cfqd->sched.nr_busy, atomic_read(&cfqd->tags_held),
			   atomic_read(&cfqd->tags_pending), cfqd->tag_limit);
	}
	spin_unlock_irq(&cmd->lock);
	return 0;
}

static const char *const cfq_event_names[CFQ_NR_EVENTS] = {
	[CFQ_EV_DISPATCH]	= "dispatch",
	[CFQ_EV_DISPATCH_NONE]	= "dispatch_none",
	[CFQ_EV_WAIT]		= "wait",
	[CFQ_EV_KICK]		= "kick",
	[CFQ_EV_IDLE_ARM]	= "idle_arm",
	[CFQ_EV_IDLE_EXPIRE]	= "idle_expire",
	[CFQ_EV_SLICE_EXPIRE]	= "slice_expire",
	[CFQ_EV_GROUP_EXPIRE]	= "group_expire",
	[CFQ_EV_REQUEUE_PAST]	= "requeue_past",
	[CFQ_EV_FILL_QUEUE]	= "fill_queue",
	[CFQ_EV_FILL_GROUP]	= "fill_group",
	[CFQ_EV_FILL_GAP]	= "fill_gap",
	[CFQ_EV_AHEAD]		= "dispatch_ahead",
	[CFQ_EV_MEDIA_PROBE]	= "media_probe",
	[CFQ_EV_FLUSH]		= "flush",
	[CFQ_EV_FLUSH_FAILED]	= "flush_failed",
};

/* Event counts since the elevator was set up, one "name count" a line. */
static int cfq_events_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_meta_data *cmd = q->elevator->elevator_data;
	u64 events[CFQ_NR_EVENTS];
	int i;

	spin_lock_irq(&cmd->lock);
	memcpy(events, cmd->events, sizeof(events));
	spin_unlock_irq(&cmd->lock);
	for (i = 0; i < CFQ_NR_EVENTS; i++)
		seq_printf(m, "%s %llu\n", cfq_event_names[i], events[i]);
	return 0;
}

static const struct blk_mq_debugfs_attr cfq_queue_debugfs_attrs[] = {
	{"state", 0400, cfq_state_show},
	{"events", 0400, cfq_events_show},
	{"groups", 0400, cfq_groups_show},
	{"queues", 0400, cfq_queues_show},
	{},
};
#endif

static struct elevator_type cfq_iosched = {
	.ops = {
		.init_sched		= cfq_init_sched,
		.exit_sched		= cfq_exit_sched,
		.init_hctx		= cfq_init_hctx,
		.exit_hctx		= cfq_exit_hctx,
		.depth_updated		= cfq_depth_updated,
		.limit_depth		= cfq_limit_depth,
		.prepare_request	= cfq_prepare_request,
		.finish_request		= cfq_finish_request,
		.insert_requests	= cfq_insert_requests,
		.dispatch_request	= cfq_dispatch_request,
		.has_work		= cfq_has_work,
		.completed_request	= cfq_completed_request,
		.requeue_request	= cfq_requeue_request,
		.bio_merge		= cfq_bio_merge,
		.request_merge		= cfq_request_merge,
		.request_merged		= cfq_request_merged,
		.requests_merged	= cfq_requests_merged,
		.allow_merge		= cfq_allow_merge,
		.former_request		= elv_rb_former_request,
		.next_request		= elv_rb_latter_request,
		.exit_icq		= cfq_exit_icq,
	},
	.icq_size = sizeof(struct cfq_io_cq),
	.icq_align = __alignof__(struct cfq_io_cq),
	/* What a depth-32 disk gets: room for the groups' tag gates. */
	.min_nr_requests = CFQ_MIN_NR_REQUESTS,
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = cfq_queue_debugfs_attrs,
#endif
	.elevator_attrs = cfq_attrs,
	.elevator_name = "cfq",
	.elevator_owner = THIS_MODULE,
};
MODULE_ALIAS("cfq-iosched");

static int __init cfq_init(void)
{
	int ret;

	cfq_pool = KMEM_CACHE(cfq_queue, 0);
	if (!cfq_pool)
		return -ENOMEM;
	ret = elv_register(&cfq_iosched);
	if (ret)
		kmem_cache_destroy(cfq_pool);
	return ret;
}

static void __exit cfq_exit(void)
{
	elv_unregister(&cfq_iosched);
	wait_var_event(&cfq_flushes, !atomic_read(&cfq_flushes));
	kmem_cache_destroy(cfq_pool);
}

module_init(cfq_init);
module_exit(cfq_exit);

MODULE_DESCRIPTION("Two-layer CFQ I/O scheduler");
MODULE_LICENSE("GPL");
