/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private definitions of the cfq elevator, shared by its files:
 * cfq-iosched.c (blk-mq hooks, sysfs, debugfs), cfq-queue.c (per-task CFQ
 * inside one group) and cfq-group.c (the group layer).  The three are one
 * compilation unit (cfq-iosched.c includes the other two), so every
 * function here is static and the compiler may inline across them.
 * Functions taking a cfq_meta_data expect cmd->lock held
 * (include/linux/cfq-iosched.h).
 */
#ifndef _BLOCK_CFQ_H
#define _BLOCK_CFQ_H

#include <linux/blkdev.h>
#include <linux/blktrace_api.h>
#include <linux/blk-mq.h>
#include <linux/cfq-iosched.h>

#include "blk.h"
#include "elevator.h"

/* Slice scaling: each level above 4 adds a fifth of the base, CFQ's rule. */
#define CFQ_SLICE_SCALE		5
/* The IDLE class waits until the device has been otherwise idle this long. */
#define CFQ_IDLE_DELAY_NS	(200 * NSEC_PER_MSEC)
/* A request farther than this from the queue's last one is a seek. */
#define CFQ_SEEK_THR		((sector_t)800)
/* Requests seen before a queue's idle window can open. */
#define CFQ_IDLE_MIN_SAMPLES	4
/* Seeky queues compared for the one nearest the head (cfq_rr_nearest()) */
#define CFQ_NEAR_SCAN		32
/* low_latency leaves a slice on a disk at least this many seeks long */
#define CFQ_LOW_SLICE_SEEKS	10
/* On a disk of depth 1 the sync slice base is this many far requests */
#define CFQ_SLICE_SEEKS		8
/* On a disk a group's turn is at least this many far requests long */
#define CFQ_TURN_SEEKS		24
/* A disk's far request: a seek and half a turn (4.2 ms at 7200 rpm). */
#define CFQ_DISK_FAR_NS		(4 * NSEC_PER_MSEC)
/* A group that takes this long to send its next request thinks. */
#define CFQ_SPARE_THINK_NS	NSEC_PER_MSEC
/* In IOPS mode each completed request is charged as this much service. */
#define CFQ_IOPS_CHARGE_NS	NSEC_PER_MSEC
/* Requests of each kind seen before the device's seek cost is known. */
#define CFQ_SVC_MIN_SAMPLES	32
/* Larger requests are timed apart from small ones (enum cfq_svc_size) */
#define CFQ_SVC_LARGE_BYTES	(64 * 1024)
/* Far requests taking this much longer than near ones: seeks cost */
#define CFQ_SEEK_FREE_NS	(2 * NSEC_PER_MSEC)
/* Reads seen before their mean prices a write (cfq_media_charge()). */
#define CFQ_MEDIA_MIN_SAMPLES	4
/* A write under this part of a read's time was taken into a cache. */
#define CFQ_MEDIA_CACHED_DIV	2
/* Device time charged ahead for writes in a disk's cache, at most. */
#define CFQ_MEDIA_DEBT_MAX_NS	NSEC_PER_SEC
/* A cached write's price as a read's, in 1/16ths, and its bounds. */
#define CFQ_MEDIA_SCALE_ONE	16
#define CFQ_MEDIA_SCALE_MIN	4
#define CFQ_MEDIA_SCALE_MAX	48
/* Depth 1: fast reads offset at most this many reads' mean of slow ones. */
#define CFQ_MEDIA_NET_READS	4
/* Cached writes between two moves of the price. */
#define CFQ_MEDIA_ADJUST_WRITES	8
/* Steps a price found short by one debt's write-back may rise, at most. */
#define CFQ_MEDIA_CATCH_UP	4
/* Longest wait for a flush cfq sent (cfq_writeback_flush()). */
#define CFQ_FLUSH_TIMEOUT_NS	(5 * NSEC_PER_SEC)
/* ... sent only if another group read this recently (cfq_flush_helps()). */
#define CFQ_FLUSH_READ_NS	NSEC_PER_SEC
/* Shortest group turn, so a weight-1 group still gets a few requests in. */
#define CFQ_MIN_TURN_NS		(2 * NSEC_PER_MSEC)
/* A queue's fill weight is its slice for this base (180 at level 0). */
#define CFQ_FILL_BASE		100
/* What a dispatch adds to a queue's fill_vt, times its fill weight. */
#define CFQ_FILL_UNIT		BIT_ULL(20)
/*
 * Fill credit a queue back from a gap it did not choose keeps, at most:
 * what a level-7 queue's slice takes on a device that completes 32
 * requests a millisecond (40 ms x 32 / 40 units).
 */
#define CFQ_FILL_KEEP		(32 * CFQ_FILL_UNIT)
/* Queues of the served group's class looked at for a free slot. */
#define CFQ_FILL_SCAN		8
/* A task waiting at a group's tag gate looks again this often anyway. */
#define CFQ_GATE_POLL		HZ
/* Scheduler tags per hardware queue cfq asks blk-mq for, at least. */
#define CFQ_MIN_NR_REQUESTS	64
/* How often the groups' tag limits are computed again. */
#define CFQ_TAG_PERIOD_NS	(10 * NSEC_PER_MSEC)

static struct kmem_cache *cfq_pool;

/*
 * A request's scheduler data.  priv[0]: its queue, from insertion on (a
 * reference).  priv[1]: before insertion, its submitter's group (a css
 * reference, NULL for the root group); from insertion on, the
 * CFQ_RQ_* state bits below.
 */
#define RQ_CFQQ(rq)	((struct cfq_queue *)((rq)->elv.priv[0]))
#define RQ_CSS(rq)	((struct cgroup_subsys_state *)((rq)->elv.priv[1]))

enum {
	CFQ_RQ_IN_DRIVER	= 1 << 0,	/* dispatched by us, not done */
	CFQ_RQ_IDLE_CLASS	= 1 << 1,	/* dispatched from an IDLE queue */
	CFQ_RQ_FAR		= 1 << 2,	/* seeked from the head position */
	CFQ_RQ_SPARE		= 1 << 3,	/* in a slot nobody was owed */
	CFQ_RQ_LARGE		= 1 << 4,	/* over CFQ_SVC_LARGE_BYTES */
};

static inline unsigned long cfq_rq_state(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1];
}

/* The size class a request's service is measured in (CFQ_RQ_LARGE). */
static inline enum cfq_svc_size cfq_rq_svc_size(unsigned long state)
{
	return state & CFQ_RQ_LARGE ? CFQ_SVC_LARGE : CFQ_SVC_SMALL;
}

static inline void cfq_rq_set_state(struct request *rq, unsigned long state)
{
	rq->elv.priv[1] = (void *)state;
}

#define cfq_log(cmd, fmt, args...) \
	blk_add_trace_msg((cmd)->queue, "cfq " fmt, ##args)
#define cfq_log_cfqd(cmd, cfqd, fmt, args...) \
	blk_add_trace_msg((cmd)->queue, "cfq [%s] " fmt, (cfqd)->name, ##args)
/* "cfq<pid><S|A><R|B|I><level> [group]": task, sync, class, level. */
#define cfq_log_cfqq(cmd, cfqq, fmt, args...)				\
	do {								\
		const struct cfq_queue *__q = (cfqq);			\
									\
		blk_add_trace_msg((cmd)->queue, "cfq%d%c%c%u [%s] " fmt, \
				  __q->pid,				\
				  test_bit(CFQQ_SYNC, &__q->flags) ? 'S' : 'A', \
				  "RBI"[__q->ioclass], __q->ioprio,	\
				  __q->cfqd->name, ##args);		\
	} while (0)

/*
 * Service is counted in I/Os rather than device time (service_mode), by
 * the queue's flags now; the scheduler's decisions use cfq_iops_mode().
 */
static inline bool cfq_iops_mode_now(struct cfq_meta_data *cmd)
{
	switch (cmd->tun[CFQ_SERVICE_MODE]) {
	case CFQ_SERVICE_TIME:
		return false;
	case CFQ_SERVICE_IOPS:
		return true;
	default:
		return blk_queue_nonrot(cmd->queue);
	}
}

/* In I/O-count mode, as the hook holding the lock read it. */
static inline bool cfq_iops_mode(struct cfq_meta_data *cmd)
{
	return cmd->iops;
}

/*
 * Seeks cost little: requests that seeked took at most half again as long
 * as those that did not, over enough of each.  A disk pays milliseconds
 * per seek (2x and more); a solid-state or emulated device that calls
 * itself rotational does not.  The margin is for what the estimate also
 * holds: a request dispatched behind another is timed from that one's
 * completion, so it carries the completion-to-issue delay.  And the
 * difference may not exceed CFQ_SEEK_FREE_NS, less than any disk's seek
 * and half turn: with NCQ the disk moves its head for other requests, and
 * a request near the last one dispatched may still need a seek.  Small and
 * large requests are judged apart, each on its own samples (a large
 * request's transfer hides its seek, and a mix would compare one size's
 * seeks with the other's transfers): no size may say that seeks cost,
 * and one at least must say that they do not.  With too few samples the
 * answer is no, so idling stays as it was.
 */
static inline bool
cfq_seeks_free(const u64 mean[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS],
	       const u32 samples[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS])
{
	bool known = false;
	int s;

	for (s = 0; s < CFQ_NR_SVC_SIZES; s++) {
		if (samples[s][CFQ_SEEK_NEAR] < CFQ_SVC_MIN_SAMPLES ||
		    samples[s][CFQ_SEEK_FAR] < CFQ_SVC_MIN_SAMPLES)
			continue;
		if (mean[s][CFQ_SEEK_FAR] * 2 > mean[s][CFQ_SEEK_NEAR] * 3 ||
		    mean[s][CFQ_SEEK_FAR] >
		    mean[s][CFQ_SEEK_NEAR] + CFQ_SEEK_FREE_NS)
			return false;
		known = true;
	}
	return known;
}

/*
 * Is the device known not to be a disk: seeks measured free, or far
 * requests of some size measured (CFQ_SVC_MIN_SAMPLES), and none of any
 * size taking what a disk's do (CFQ_DISK_FAR_NS)?  Writes into a cache
 * are not measured: a disk that has only taken such writes is not known.
 */
static inline bool
cfq_far_is_short(const u64 mean[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS],
		 const u32 samples[CFQ_NR_SVC_SIZES][CFQ_NR_SEEK_KINDS])
{
	bool known = false;
	int s;

	if (cfq_seeks_free(mean, samples))
		return true;
	for (s = 0; s < CFQ_NR_SVC_SIZES; s++) {
		if (samples[s][CFQ_SEEK_FAR] < CFQ_SVC_MIN_SAMPLES)
			continue;
		if (mean[s][CFQ_SEEK_FAR] >= CFQ_DISK_FAR_NS)
			return false;
		known = true;
	}
	return known;
}

/*
 * Move a cached write's price by @step (cfq_media_charge()), within its
 * bounds and at most once per CFQ_MEDIA_ADJUST_WRITES cached writes:
 * whether it moved.
 */
static inline bool cfq_media_step(struct cfq_media *m, int step)
{
	int scale = CFQ_MEDIA_SCALE_ONE + m->write_step + step;

	if (m->writes < CFQ_MEDIA_ADJUST_WRITES ||
	    scale < CFQ_MEDIA_SCALE_MIN || scale > CFQ_MEDIA_SCALE_MAX)
		return false;
	m->write_step += step;
	m->writes = 0;
	return true;
}

/* What a read of @size takes, once CFQ_MEDIA_MIN_SAMPLES were timed; else 0. */
static inline u64 cfq_media_read_cost(const struct cfq_media *m,
				      enum cfq_svc_size size)
{
	return m->read_samples[size] >= CFQ_MEDIA_MIN_SAMPLES ?
	       m->read_mean[size] : 0;
}

/* A cached write's price: @cost (a read's) scaled by the write step. */
static inline u64 cfq_media_price(const struct cfq_media *m, u64 cost)
{
	return div_u64(cost * (CFQ_MEDIA_SCALE_ONE + m->write_step),
		       CFQ_MEDIA_SCALE_ONE);
}

/*
 * Depth 1: the write-back reads waited for once a debt was paid
 * (@m->overrun) is what the price fell short by for the cached writes of
 * that debt (@m->debt_writes): raise it by that much of @cost (a read's),
 * less the step the first such read took, by at most CFQ_MEDIA_CATCH_UP
 * steps in all (cfq_media_charge()).
 */
static inline void cfq_media_catch_up(struct cfq_media *m, u64 cost)
{
	u64 short_by = div64_u64(m->overrun * CFQ_MEDIA_SCALE_ONE,
				 cost * m->debt_writes);
	int steps = min_t(u64, short_by, CFQ_MEDIA_CATCH_UP);

	if (steps > 1)
		m->write_step = min(m->write_step + steps - 1,
				    CFQ_MEDIA_SCALE_MAX - CFQ_MEDIA_SCALE_ONE);
	m->overrun = 0;
	m->debt_writes = 0;
}

/*
 * Write caches.  A disk with its volatile write cache on completes a
 * write once the data is in the cache, and writes it to the media later:
 * while it is idle, when a write needs room, on a flush.  Timed from its
 * dispatch, such a write costs next to nothing, and the media time it
 * needs shows up in the service of whatever request waits behind it:
 * a group that writes would get many times its share of the disk, paid
 * for by the groups that read.
 *
 * So, in time mode, a write that took less than its price and less than
 * half of what a read takes (so little is a cache's work, not the media's)
 * is charged the price, and what it did not take is kept as the device's
 * debt, at most CFQ_MEDIA_DEBT_MAX_NS.  The price starts at what a read of
 * its size takes (the mean charge of the last reads), and follows what the
 * write-back turns out to cost: a step down when a write would owe past
 * the ceiling (the device pays back less than it is charged), a step up
 * when a request still waits behind write-back after the debt is paid,
 * once per debt; steps are 1/CFQ_MEDIA_SCALE_ONE of a read, at most one
 * per CFQ_MEDIA_ADJUST_WRITES cached writes.  At depth 1, where every
 * read that waits behind write-back shows it, the write-back waited for
 * after the debt is paid is how far the price fell short for that debt's
 * writes: the next cached write raises it by the rest of that, up to
 * CFQ_MEDIA_CATCH_UP steps in all (cfq_media_catch_up()), once the debt
 * was run up by CFQ_MEDIA_ADJUST_WRITES writes or more.
 *
 * Who waits behind write-back depends on the device's depth (@serial: it
 * takes one command at a time).  One at a time, it is the next request:
 * one that takes longer than a read of its size pays off the debt first,
 * its charge dropping by its excess, as far as the debt goes.  Reads
 * spread around their mean by themselves (the nearest one first, then a
 * far one), so a read's excess is only what the reads' time over their
 * mean adds up to, net of the fast ones since the last excess (at most
 * CFQ_MEDIA_NET_READS reads' mean of them): otherwise a disk that writes
 * back only when its host is quiet, which no read waits for, would see
 * write-back in every slow read and raise the price.  With a
 * queue in the disk (NCQ), a read's time between completions is the
 * spread of the queue's, and a disk writes back in its own order, first
 * when a write needs room: the write that was not taken into the cache
 * waited for the write-back, and pays the debt off with all of its time;
 * reads neither pay the debt nor move the price.  There, nothing pays
 * the debt until the cache is full, so a step down also halves it: the
 * next step waits for half a ceiling of new debt.  Time the device
 * spends with nothing to do pays it off too (cfq_media_idle()), as a
 * disk writes back then.  Until reads have been seen, a request is
 * charged the time it took, and nothing is owed or learned; so is it
 * where writes take about as long as reads (an emulated device where
 * every request costs the same, which may still say it has a write
 * cache): nothing is ever owed there.  The caller does not ask for
 * writes on a device without a write cache.  Returns the charge for
 * @service ns.
 */
static inline u64 cfq_media_charge(struct cfq_media *m, bool write,
				   bool serial, enum cfq_svc_size size,
				   u64 service)
{
	u64 cost = cfq_media_read_cost(m, size);
	u64 price = cfq_media_price(m, cost);
	u64 excess = 0, paid;

	/* Into the cache: well under a read's time, and under its price. */
	if (write && service < price &&
	    service < cost / CFQ_MEDIA_CACHED_DIV) {
		if (!m->debt) {
			if (m->overrun &&
			    m->debt_writes >= CFQ_MEDIA_ADJUST_WRITES)
				cfq_media_catch_up(m, cost);
			else if (!m->overrun)
				m->debt_writes = 0;
			price = cfq_media_price(m, cost);
		}
		if (m->debt_writes < U16_MAX)
			m->debt_writes++;
		m->writes++;
		m->owing = true;
		if (m->debt + price - service > CFQ_MEDIA_DEBT_MAX_NS) {
			/* More owed than the device pays back: too dear. */
			if (cfq_media_step(m, -1) && !serial)
				m->debt /= 2;
		}
		m->debt = min(m->debt + price - service, CFQ_MEDIA_DEBT_MAX_NS);
		return price;
	}
	/* What of @service may be write-back waited for. */
	if (serial && cost && !write) {
		/*
		 * Reads spread around their mean by themselves: only what
		 * the slow ones took beyond what the fast ones saved.
		 */
		m->read_net = max_t(s64, m->read_net + (s64)service -
					 (s64)cost,
				    -(s64)cost * CFQ_MEDIA_NET_READS);
		if (service > cost && m->read_net > 0)
			excess = min_t(u64, service - cost, m->read_net);
		m->read_net -= excess;
	} else if (serial && cost && service > cost) {
		excess = service - cost;
	} else if (!serial && write && cost) {
		excess = service;
	}
	if (excess) {
		paid = min(m->debt, excess);
		if (m->owing && paid < excess && (!serial || !write)) {
			/* Write-back outlasted what was owed: too cheap. */
			m->owing = false;
			cfq_media_step(m, 1);
		}
		if (serial && !write && paid < excess && m->debt_writes)
			m->overrun = min(m->overrun + excess - paid,
					 (u64)CFQ_MEDIA_DEBT_MAX_NS);
		m->debt -= paid;
		service -= paid;
	}
	if (!write) {
		m->read_mean[size] = m->read_samples[size] ?
			div_u64(m->read_mean[size] * 7 + service, 8) : service;
		if (m->read_samples[size] < U16_MAX)
			m->read_samples[size]++;
	}
	return service;
}

/* The device had nothing to do for @idle ns: a disk writes back then. */
static inline void cfq_media_idle(struct cfq_media *m, u64 idle)
{
	m->debt -= min(m->debt, idle);
}

/*
 * A cache flush cfq sent at the end of a writers' turn took @took ns; the
 * @writes cached writes since the last one were charged @owed ns past the
 * time they took (cfq_writeback_flush()).  The cache is clean: nothing is
 * owed, and no read still waits behind its write-back.  The price moves
 * half the way to what the flush says a cached write costs past its own
 * time, as reads cost then.  Returns what the writers are still to be
 * charged: the flush's time less what they were charged for it (below 0,
 * charged too much).
 */
static inline s64 cfq_media_flushed(struct cfq_media *m, u64 took,
				    s64 owed, u32 writes)
{
	u64 cost = cfq_media_read_cost(m, CFQ_SVC_SMALL);
	s64 err = (s64)took - owed;

	if (writes && cost) {
		s64 steps = div64_s64(err * CFQ_MEDIA_SCALE_ONE,
				      (s64)writes * (s64)cost) / 2;

		m->write_step = clamp_t(s64, m->write_step + steps,
					CFQ_MEDIA_SCALE_MIN -
					CFQ_MEDIA_SCALE_ONE,
					CFQ_MEDIA_SCALE_MAX -
					CFQ_MEDIA_SCALE_ONE);
	}
	m->debt = 0;
	m->owing = false;
	m->overrun = 0;
	m->debt_writes = 0;
	m->read_net = 0;
	return err;
}

/*
 * equal_noidle: on a device without seek cost (non-rotational, or
 * measured so), idling for a queue or a group whose competitors all have
 * its priority cannot change shares (they would split evenly either way)
 * and costs throughput.
 */
static inline bool cfq_equal_noidle(struct cfq_meta_data *cmd)
{
	return cmd->tun[CFQ_EQUAL_NOIDLE] &&
	       (cfq_iops_mode(cmd) ||
		cfq_seeks_free(cmd->svc_mean, cmd->svc_samples));
}

/*
 * On a device where seeks cost (time mode, !cfq_seeks_free()): the mean
 * time of the longest far requests measured there, else 0.
 */
static inline u64 cfq_far_mean(struct cfq_meta_data *cmd)
{
	u64 far = 0;
	int s;

	if (cfq_iops_mode(cmd) || cfq_seeks_free(cmd->svc_mean,
						 cmd->svc_samples))
		return 0;
	for (s = 0; s < CFQ_NR_SVC_SIZES; s++)
		if (cmd->svc_samples[s][CFQ_SEEK_FAR] >= CFQ_SVC_MIN_SAMPLES)
			far = max(far, cmd->svc_mean[s][CFQ_SEEK_FAR]);
	return far;
}

/*
 * cfq_far_mean() where far requests take what a disk's do (a seek and
 * half a turn, CFQ_DISK_FAR_NS or more), else 0.  Random readers alone
 * give no near requests to compare far ones with: this tells a disk from
 * an emulated one by the far requests alone.
 */
static inline u64 cfq_disk_far(struct cfq_meta_data *cmd)
{
	u64 far = cfq_far_mean(cmd);

	return far >= CFQ_DISK_FAR_NS ? far : 0;
}

/*
 * Concurrent service (fill_slots): in I/O-count mode, where the device
 * has no head to keep in place, other queues and groups may use device
 * slots the served queue leaves free.
 */
static inline bool cfq_fill_on(struct cfq_meta_data *cmd)
{
	return cmd->tun[CFQ_FILL_SLOTS] && cfq_iops_mode(cmd);
}

/*
 * Requests the device takes at once: the depth of each hardware queue
 * with tags, or of the device where its driver sets one (SCSI), now.
 */
static inline unsigned int cfq_hw_depth_now(struct cfq_meta_data *cmd)
{
	unsigned int tags = cmd->queue->tag_set->queue_depth;
	unsigned int dev = READ_ONCE(cmd->queue->queue_depth);

	return (dev && dev < tags ? dev : tags) * READ_ONCE(cmd->nr_hw);
}

/*
 * Read the device's mode and depth once per hold of the lock, in every
 * hook that takes it but a completion (insert, dispatch, requeue, the
 * idle timer, a merge, a task's exit, a group's offline) and where they
 * change (init, a tunable written): the decision asks a dozen times per
 * request.  A completion charges its request as the hook that dispatched
 * it read them.  A sysfs write to rotational or to the depth counts from
 * the next of those hooks on.
 */
static inline void cfq_device_read(struct cfq_meta_data *cmd)
{
	lockdep_assert_held(&cmd->lock);

	cmd->iops = cfq_iops_mode_now(cmd);
	cmd->hw_depth = cfq_hw_depth_now(cmd);
}

/* cfq_hw_depth_now() as the hook holding the lock read it. */
static inline unsigned int cfq_hw_depth(struct cfq_meta_data *cmd)
{
	return cmd->hw_depth;
}

/*
 * One command at a time, time mode, a write cache: a cached write is
 * priced by what a read takes, unknown until CFQ_MEDIA_MIN_SAMPLES reads
 * of a size have been timed; till then a write is charged what it took
 * and owes nothing (cfq_media_charge()).  Writers that start with
 * readers would fill the cache unbilled, and the disk writes that back
 * in the gaps between requests, in front of the first reads: their mean
 * and the price learned from it then hold write-back no debt pays for.
 * So while reads are unpriced, a queued read goes first, one at a time
 * (cfq_media_probe()): a few tens of milliseconds, once per elevator.
 */
static inline bool cfq_media_unpriced(struct cfq_meta_data *cmd)
{
	return !cfq_iops_mode(cmd) && cfq_hw_depth(cmd) == 1 &&
	       cmd->media.read_samples[CFQ_SVC_SMALL] < CFQ_MEDIA_MIN_SAMPLES &&
	       cmd->media.read_samples[CFQ_SVC_LARGE] < CFQ_MEDIA_MIN_SAMPLES &&
	       blk_queue_write_cache(cmd->queue);
}

/*
 * The scheduler's clock: never earlier than a time it has already used.
 * Hooks read the time on different CPUs, and blk-mq may pass a plug's
 * cached time at completion; a time behind the last one would make a
 * difference wrap (a group charged 2^64 ns would never run again).
 */
static inline u64 cfq_clock(struct cfq_meta_data *cmd, u64 now)
{
	lockdep_assert_held(&cmd->lock);

	if (now < cmd->clock)
		return cmd->clock;
	cmd->clock = now;
	return now;
}

/*
 * Every scheduler tag is held (queued here or in the driver): no task can
 * send a request until one completes, so idling for one cannot pay.
 */
static inline bool cfq_tags_full(struct cfq_meta_data *cmd)
{
	return cmd->nr_queued + cmd->in_driver >= cmd->depth;
}

/*
 * Sync requests of @cfqd counted at its tag gate: inserted and not yet
 * ended, or past the gate and waiting for a tag.  Without the lock.
 */
static inline int cfq_group_tags(struct cfq_data *cfqd)
{
	return atomic_read(&cfqd->tags_held) + atomic_read(&cfqd->tags_pending);
}

/* Without the lock (limit_depth): are 3/4 or more of the tags held? */
static inline bool cfq_tags_scarce(struct cfq_meta_data *cmd,
				   unsigned int depth)
{
	return 4 * (READ_ONCE(cmd->nr_queued) + READ_ONCE(cmd->in_driver)) >=
	       3 * depth;
}

static inline struct cfq_io_cq *icq_to_cic(struct io_cq *icq)
{
	return container_of(icq, struct cfq_io_cq, icq);
}

/* A tunable in ms, in ns: kept converted, as the hot paths read it. */
static inline u64 cfq_tun_ns(struct cfq_meta_data *cmd, enum cfq_tunable t)
{
	return cmd->tun_ns[t];
}

static inline void cfq_tun_set(struct cfq_meta_data *cmd, enum cfq_tunable t,
			       unsigned int val)
{
	cmd->tun[t] = val;
	cmd->tun_ns[t] = (u64)val * NSEC_PER_MSEC;
	/* A mode given outright needs no device (the KUnit tests have none). */
	if (t == CFQ_SERVICE_MODE && val != CFQ_SERVICE_AUTO)
		cmd->iops = val == CFQ_SERVICE_IOPS;
}

enum cfq_verdict {
	CFQ_SERVE,	/* dispatch from the returned queue */
	CFQ_WAIT,	/* a completion or the idle timer will kick us */
	CFQ_EMPTY,	/* the group has nothing it may dispatch now */
};

/* cfq-queue.c: the queues of one group */
static void cfq_rq_prio(u16 ioprio, int nice, enum cfq_class *ioclass,
			unsigned int *level);
static void cfq_queue_get(struct cfq_queue *cfqq);
static void cfq_queue_put(struct cfq_meta_data *cmd, struct cfq_queue *cfqq);
static struct cfq_queue *cfq_queue_alloc(struct cfq_meta_data *cmd,
					 struct cfq_data *cfqd, bool sync,
					 enum cfq_class ioclass,
					 unsigned int level, pid_t pid);
static struct cfq_queue **cfq_async_slot(struct cfq_data *cfqd,
					 enum cfq_class ioclass,
					 unsigned int level);
static bool cfq_idle_class_allowed(struct cfq_meta_data *cmd, u64 now);
static void cfq_queue_set_prio(struct cfq_meta_data *cmd,
			       struct cfq_queue *cfqq, enum cfq_class ioclass,
			       unsigned int level, u64 now);
static void cfq_update_next_rq(struct cfq_meta_data *cmd,
			       struct cfq_queue *cfqq, struct request *rq);
static void cfq_add_rq(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
		       struct request *rq, u64 now);
static void cfq_remove_rq(struct cfq_meta_data *cmd, struct request *rq);
static void cfq_idle_arm(struct cfq_meta_data *cmd, enum cfq_idle_kind kind,
			 u64 now, u64 delay);
static void cfq_idle_cancel(struct cfq_meta_data *cmd, u64 now);
static void cfq_slice_expired(struct cfq_meta_data *cmd,
			      struct cfq_data *cfqd, u64 now);
static bool cfq_should_idle(struct cfq_meta_data *cmd, struct cfq_queue *cfqq);
static bool cfq_preempted(struct cfq_data *cfqd, struct cfq_queue *cfqq);
static enum cfq_verdict cfq_select_queue(struct cfq_meta_data *cmd,
					 struct cfq_data *cfqd, u64 now,
					 u64 gclock);
static struct request *cfq_dispatch_from(struct cfq_meta_data *cmd,
					 struct cfq_data *cfqd, u64 now,
					 u64 gclock);
static u64 cfq_fill_charge(const struct cfq_queue *cfqq);
static void cfq_fill_join(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
			  u64 now);
static bool cfq_fill_owed(struct cfq_meta_data *cmd, struct cfq_queue *cfqq,
			  u64 now);
static struct cfq_queue *cfq_fill_queue(struct cfq_meta_data *cmd,
					struct cfq_data *cfqd);
static struct cfq_queue *cfq_fill_queue_of(struct cfq_meta_data *cmd,
					   struct cfq_data *cfqd, u64 now);
static struct request *cfq_fill_from(struct cfq_meta_data *cmd,
				     struct cfq_queue *cfqq, u64 now);

/* cfq-group.c: the hierarchy of groups */
static u64 cfq_vtime_charge(u64 service, unsigned int weight);
static bool cfq_vtime_before(u64 a, u64 b);
static unsigned int cfq_tag_frac(unsigned int frac, unsigned int weight,
				 u64 total);
static unsigned int cfq_tag_limit(unsigned int depth, unsigned int frac);
static unsigned int cfq_async_depth(unsigned int depth);
static bool cfq_group_may_keep(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd, u64 now);
static bool cfq_group_self_changed(struct cfq_data *cfqd);
static void cfq_group_changed(struct cfq_meta_data *cmd,
			      struct cfq_data *cfqd, bool keep);
static void cfq_group_charge(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			     u64 service, bool spare);
static unsigned int cfq_group_weight(struct cfq_data *cfqd);
static void cfq_group_init(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   struct cgroup_subsys_state *css,
			   struct cfq_data *parent);
static void cfq_group_get(struct cfq_data *cfqd);
static void cfq_group_put(struct cfq_meta_data *cmd, struct cfq_data *cfqd);
static struct cfq_data *cfq_group_lookup(struct cfq_meta_data *cmd,
					 struct cgroup_subsys_state *css,
					 bool create);
static u64 cfq_group_clock(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 now);
static void cfq_group_activate(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd, u64 now);
static void cfq_group_expire(struct cfq_meta_data *cmd, u64 now);
static void cfq_group_done(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			   u64 now);
static struct cfq_data *cfq_group_pick(struct cfq_meta_data *cmd, u64 now);
static bool cfq_others_waiting(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd);
static bool cfq_turn_over(struct cfq_meta_data *cmd, struct cfq_data *cfqd,
			  u64 now);
static bool cfq_group_should_idle(struct cfq_meta_data *cmd,
				  struct cfq_data *cfqd);
static struct cfq_data *cfq_group_fill_pick(struct cfq_meta_data *cmd,
					    unsigned int depth, bool spare);
static void cfq_group_tag_limits(struct cfq_meta_data *cmd);
static struct cfq_data *cfq_group_find(struct cfq_meta_data *cmd,
				       struct cgroup_subsys_state *css);
static void cfq_group_unlink(struct cfq_meta_data *cmd, struct cfq_data *cfqd);
static void cfq_group_try_reap(struct cfq_meta_data *cmd,
			       struct cfq_data *cfqd);

#endif /* _BLOCK_CFQ_H */
