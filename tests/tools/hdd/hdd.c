// SPDX-License-Identifier: GPL-2.0
/*
 * hdd: a ublk server that behaves like a 7200 rpm SATA disk.
 *
 * The block device it serves (/dev/ublkbN) completes each request when a
 * modelled disk would: after the command overhead, a seek that depends on
 * how far the head moves, the wait until the platter brings the first
 * sector under the head, and the transfer at the rate of the zone the
 * data lies in (outer tracks hold more sectors than inner ones).  The
 * disk reads ahead while it is idle, keeps a few read segments, and
 * may hold written data in a volatile write cache that it writes out
 * (destages) when it has nothing else to do, when the cache is full, or
 * on a flush.  At a queue depth above 1 it holds many commands and
 * serves the one it can reach first (shortest positioning time first,
 * with an age limit), as NCQ drives do.  The model's figures are in
 * struct hdd_params and README.md (with their sources); every other
 * number here is derived from them.
 *
 * Data lives in a store file (sparse where never written), so what is
 * written reads back; with --store none nothing is kept and reads
 * return zeros (timing only).
 *
 * One thread serves the device's single hardware queue; the main thread
 * adds, starts, and on SIGTERM or SIGINT stops and deletes the device.
 * Time is modelled in a virtual clock that follows CLOCK_MONOTONIC: a
 * command that waited in the disk starts when the previous one ended,
 * not when this thread noticed, so scheduling delays in the host do not
 * slow the disk down as long as it has work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <liburing.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The 6.12 UAPI header (Debian 12's linux-libc-dev is 6.1's). */
#include "ublk_cmd.h"

#define SECTOR		512.0
#define MAX_DEPTH	256
#define MAX_IO_BYTES	(1U << 20)
#define NR_SEGMENTS	16	/* read segments of the buffer */
/* A segment's size, in sectors (P: the parameters, below). */
#define SEG_SECTORS	(P.cache_mib * 2048.0 / NR_SEGMENTS)

/* ------------------------------------------------------------------ */
/* The disk's figures (README.md names the datasheet of each one). */

struct hdd_params {
	double rpm;
	double seek_track_ms;	/* single track (track-to-track) */
	double seek_avg_ms;	/* average over all seeks, read */
	double seek_full_ms;	/* full stroke, read */
	double write_seek_ms;	/* added to a write's seek (settling) */
	double rate_od_mbs;	/* sustained media rate, outer zone */
	double rate_id_mbs;	/* sustained media rate, inner zone */
	double overhead_ms;	/* command overhead */
	double iface_mbs;	/* interface (cache to host) rate */
	double capacity_gb;	/* decimal GB */
	unsigned int heads;	/* data surfaces */
	unsigned int cache_mib;	/* buffer; half of it may hold writes */
	unsigned int readahead_kib;
	double age_ms;		/* NCQ: a command this old is served next */
	unsigned int idle_k;	/* arrivals the idle delay averages over */
	double idle_max_ms;	/* longest idle delay */
};

static struct hdd_params P = {
	.rpm		= 7200,
	.seek_track_ms	= 0.23,
	.seek_avg_ms	= 7.4,
	.seek_full_ms	= 12.3,
	.write_seek_ms	= 0.8,
	.rate_od_mbs	= 140,
	.rate_id_mbs	= 67,
	.overhead_ms	= 0.1,
	.iface_mbs	= 600,
	.capacity_gb	= 2000.4,
	.heads		= 8,
	.cache_mib	= 64,
	.readahead_kib	= 2048,
	.age_ms		= 500,
	.idle_k		= 8,
	.idle_max_ms	= 100,
};

/* ------------------------------------------------------------------ */
/* Geometry and mechanics, derived. */

static double t_rev;		/* one revolution, s */
static double rho;		/* inner / outer radius = ID / OD rate */
static double t_stream;		/* reading the whole disk, s */
static double n_cyl;		/* cylinders over the stroke */
static uint64_t nr_sectors;
static double seek_knee;	/* seek time at a third of the stroke */

/*
 * Radial position (0 = outer edge, 1 = inner) of a sector.  At constant
 * linear density a track holds sectors in proportion to its radius r, so
 * the sectors outside r grow as 1 - r^2.
 */
static double lba_x(double lba)
{
	double f = lba / nr_sectors;
	double r = sqrt(1.0 - f * (1.0 - rho * rho));

	return (1.0 - r) / (1.0 - rho);
}

/*
 * Time to read from sector 0 to @lba sequentially: each track takes a
 * revolution and tracks are evenly spaced, so it grows linearly with x.
 */
static double lba_t(double lba)
{
	return t_stream * lba_x(lba);
}

/* The sector under the head after streaming for @t from sector 0. */
static double t_lba(double t)
{
	double x = t / t_stream;
	double r = 1.0 - x * (1.0 - rho);

	if (x >= 1.0)
		return nr_sectors;
	return nr_sectors * (1.0 - r * r) / (1.0 - rho * rho);
}

/*
 * Seek time for a move of @d of the stroke: a square-root curve from a
 * single track up to a third of the stroke (acceleration-limited), then
 * linear to the full stroke (speed-limited).
 */
static double seek_curve(double d, double knee)
{
	double d1 = 1.0 / n_cyl;

	if (d < d1)
		return 0.0;
	if (d <= 1.0 / 3) {
		double s = sqrt((d - d1) / (1.0 / 3 - d1));

		return (P.seek_track_ms + (knee - P.seek_track_ms) * s) / 1e3;
	}
	return (knee + (P.seek_full_ms - knee) * (d - 1.0 / 3) / (2.0 / 3)) /
	       1e3;
}

/* Mean seek over all pairs of cylinders: distance density 2(1 - d). */
static double seek_mean(double knee)
{
	const int n = 20000;
	double sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		double d = (i + 0.5) / n;

		sum += seek_curve(d, knee) * 2.0 * (1.0 - d) / n;
	}
	return sum * 1e3;
}

static void derive(void)
{
	double cap = P.capacity_gb * 1e9;
	double m0, m1;

	nr_sectors = (uint64_t)(cap / SECTOR);
	t_rev = 60.0 / P.rpm;
	rho = P.rate_id_mbs / P.rate_od_mbs;
	t_stream = cap / ((1.0 + rho) / 2.0 * P.rate_od_mbs * 1e6);
	n_cyl = t_stream / t_rev / P.heads;
	/*
	 * The knee makes the mean seek the datasheet's average; the mean
	 * is linear in it.
	 */
	m0 = seek_mean(0.0);
	m1 = seek_mean(1.0);
	seek_knee = (P.seek_avg_ms - m0) / (m1 - m0);
}

static double frac(double v)
{
	return v - floor(v);
}

/* ------------------------------------------------------------------ */
/* Commands and the disk's state. */

enum kind { K_NONE, K_HIT, K_STREAM, K_MECH, K_CACHED_WRITE, K_FLUSH };

struct cmd {
	bool busy;		/* owned by us (fetched, not committed) */
	bool pending;		/* waiting for the mechanism or room */
	uint8_t op;
	uint32_t flags;
	uint64_t lba;
	uint32_t nsect;
	double arrival;
	double done;		/* > 0: completes then */
	enum kind kind;
	double start;		/* mechanism start (trace) */
	/*
	 * First command after a write-back: its positioning beyond what
	 * the command served next would have taken from where the
	 * write-back found the head, and when the write-back's last
	 * destage started (trace)
	 */
	double back;
	double back_t;
};

struct extent {
	uint64_t start, end;
};

struct hdd {
	int cdev;
	int store;
	unsigned int depth;
	bool wce;
	int qid;
	struct io_uring ring;
	const struct ublksrv_io_desc *iod;
	void *buf[MAX_DEPTH];
	struct cmd cmd[MAX_DEPTH];
	unsigned int aborted;

	/* mechanism */
	bool mech_busy;
	int mech_tag;		/* -1: destage */
	double mech_end;
	double free_at;
	double head_x;
	struct extent destage;
	double destage_t;	/* when it started */
	bool away;		/* written back since the last host command */
	double home_x;		/* where the write-back found the head */
	double away_t;		/* when its last destage started */

	/*
	 * read-ahead: the head read sector s_lba at s_t and reads on while
	 * idle, up to s_cap; the segment so far starts at s_start
	 */
	bool s_live;
	double s_lba, s_t, s_cap, s_start;
	struct extent seg[NR_SEGMENTS];
	unsigned int seg_next;

	/* write cache: dirty extents, sorted, merged */
	struct extent *dirty;
	unsigned int nr_dirty, dirty_cap;
	uint64_t dirty_sect;
	double dirty_t;		/* when the cache last became dirty */
	bool flush_waiting;

	/*
	 * idle write-back (--idle-delay on): the mean gap between host
	 * commands' arrivals, and the last arrival
	 */
	bool idle_delay, wb_idle;
	double last_arrival, ia_mean, wake_at;

	/* statistics */
	uint64_t n_ops[4], n_sect[4], n_hit, n_stream, n_destage;
	double busy_s;
	FILE *trace;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The sector the read-ahead stream has reached at @t (idle since s_t). */
static double stream_end(const struct hdd *h, double t)
{
	double l = t_lba(lba_t(h->s_lba) + (t - h->s_t));

	return l < h->s_cap ? l : h->s_cap;
}

/*
 * The first sector of the stream still in the buffer at @t: a segment is
 * a sixteenth of the buffer, and the stream keeps its last one.
 */
static double stream_low(const struct hdd *h, double t)
{
	double low = stream_end(h, t) - SEG_SECTORS;

	return low > h->s_start ? low : h->s_start;
}

/* The live stream holds sector @lba at @t (read, or under the head). */
static bool on_stream(const struct hdd *h, uint64_t lba, double t)
{
	return h->s_live && lba >= stream_low(h, t) && lba <= stream_end(h, t);
}

/* The head leaves the stream at @t: what it read last stays cached. */
static void stream_stop(struct hdd *h, double t)
{
	if (!h->s_live)
		return;
	h->seg[h->seg_next].start = (uint64_t)stream_low(h, t);
	h->seg[h->seg_next].end = (uint64_t)stream_end(h, t);
	h->seg_next = (h->seg_next + 1) % NR_SEGMENTS;
	h->s_live = false;
}

static bool seg_hit(const struct hdd *h, uint64_t lba, uint64_t end)
{
	int i;

	for (i = 0; i < NR_SEGMENTS; i++)
		if (h->seg[i].start <= lba && end <= h->seg[i].end &&
		    h->seg[i].end > h->seg[i].start)
			return true;
	return false;
}

/* Written sectors are no longer what the read segments hold. */
static void seg_invalidate(struct hdd *h, uint64_t lba, uint64_t end,
			   double t)
{
	int i;

	if (h->s_live && lba < stream_end(h, t) + 1 && end > h->s_start)
		stream_stop(h, t);
	for (i = 0; i < NR_SEGMENTS; i++)
		if (lba < h->seg[i].end && end > h->seg[i].start) {
			h->seg[i].start = 0;
			h->seg[i].end = 0;
		}
}

/*
 * Time from @t until the head can transfer sector @lba: the command's
 * overhead (@host: not for the disk's own destaging), the seek, and the
 * wait for the sector to come round.
 */
static double positioning(const struct hdd *h, uint64_t lba, bool write,
			  bool host, double t)
{
	double x = lba_x(lba);
	double s = seek_curve(fabs(x - h->head_x), seek_knee);
	double at, wait;

	if (write && s > 0)
		s += P.write_seek_ms / 1e3;
	at = t + (host ? P.overhead_ms / 1e3 : 0) + s;
	wait = frac(lba_t(lba) / t_rev - at / t_rev) * t_rev;
	if (wait > t_rev - 1e-7)	/* rounding: it is under the head */
		wait = 0;
	return at - t + wait;
}

/* @c's positioning at @t had the head stayed where a write-back found it */
static double from_home(struct hdd *h, const struct cmd *c, double t)
{
	double head = h->head_x, pt;

	h->head_x = h->home_x;
	pt = positioning(h, c->lba, c->op == UBLK_IO_OP_WRITE, true, t);
	h->head_x = head;
	return pt;
}

/* ------------------------------------------------------------------ */
/* Write cache. */

static void dirty_add(struct hdd *h, uint64_t lba, uint64_t end, double t)
{
	unsigned int i = 0, j;

	if (!h->nr_dirty)
		h->dirty_t = t;

	while (i < h->nr_dirty && h->dirty[i].end < lba)
		i++;
	/* merge every extent that overlaps or touches [lba, end) */
	j = i;
	while (j < h->nr_dirty && h->dirty[j].start <= end) {
		if (h->dirty[j].start < lba)
			lba = h->dirty[j].start;
		if (h->dirty[j].end > end)
			end = h->dirty[j].end;
		h->dirty_sect -= h->dirty[j].end - h->dirty[j].start;
		j++;
	}
	if (j == i) {
		if (h->nr_dirty == h->dirty_cap) {
			h->dirty_cap = h->dirty_cap ? 2 * h->dirty_cap : 256;
			h->dirty = realloc(h->dirty,
					   h->dirty_cap * sizeof(*h->dirty));
			if (!h->dirty) {
				perror("realloc");
				exit(1);
			}
		}
		memmove(&h->dirty[i + 1], &h->dirty[i],
			(h->nr_dirty - i) * sizeof(*h->dirty));
		h->nr_dirty++;
	} else if (j > i + 1) {
		memmove(&h->dirty[i + 1], &h->dirty[j],
			(h->nr_dirty - j) * sizeof(*h->dirty));
		h->nr_dirty -= j - i - 1;
	}
	h->dirty[i].start = lba;
	h->dirty[i].end = end;
	h->dirty_sect += end - lba;
}

static uint64_t cache_room(const struct hdd *h)
{
	/* half the buffer, in sectors */
	uint64_t limit = (uint64_t)P.cache_mib * 1024;

	return h->dirty_sect < limit ? limit - h->dirty_sect : 0;
}

/* ------------------------------------------------------------------ */
/* The mechanism. */

static void complete(struct hdd *h, int tag, double t)
{
	h->cmd[tag].done = t > 0 ? t : 1e-9;
}

static double xfer(uint32_t nsect, double mbs)
{
	return nsect * SECTOR / (mbs * 1e6);
}

/* A command the cache can answer without the head, at arrival. */
static bool try_cache(struct hdd *h, int tag, double t)
{
	struct cmd *c = &h->cmd[tag];
	uint64_t end = c->lba + c->nsect;
	double hit = P.overhead_ms / 1e3 + xfer(c->nsect, P.iface_mbs);

	switch (c->op) {
	case UBLK_IO_OP_READ:
		if (seg_hit(h, c->lba, end) ||
		    (!h->mech_busy && on_stream(h, c->lba, t) &&
		     end <= stream_end(h, t))) {
			c->kind = K_HIT;
			h->n_hit++;
			complete(h, tag, t + hit);
			return true;
		}
		return false;
	case UBLK_IO_OP_WRITE:
		seg_invalidate(h, c->lba, end, t);
		if (!h->wce || (c->flags & UBLK_IO_F_FUA) ||
		    cache_room(h) < c->nsect)
			return false;
		dirty_add(h, c->lba, end, t);
		c->kind = K_CACHED_WRITE;
		complete(h, tag, t + hit);
		return true;
	case UBLK_IO_OP_FLUSH:
		if (h->nr_dirty) {
			h->flush_waiting = true;
			return false;
		}
		c->kind = K_FLUSH;
		complete(h, tag, t + P.overhead_ms / 1e3);
		return true;
	default:
		return false;
	}
}

/*
 * When the disk, idle since @free, may start writing back on its own.
 * With --idle-delay on: once nothing has come from the host for the mean
 * gap between the host's commands, so that a command that follows at the
 * host's usual pace does not find the head busy.  Else at once (0).
 */
static double idle_due(const struct hdd *h, double free)
{
	double since = h->last_arrival > free ? h->last_arrival : free;

	if (!h->idle_delay)
		return 0;
	/* writing back on its own, and nothing came since: go on */
	if (h->mech_tag < 0 && h->wb_idle && h->last_arrival <= h->destage_t)
		return free;
	return since + h->ia_mean;
}

/*
 * Start the next operation the disk, free since @free, can start by @now:
 * a host command, or a destage.  If a destage waits for the idle delay,
 * h->wake_at is when it is due.
 */
static bool mech_start(struct hdd *h, double free, double now)
{
	double best = INFINITY, oldest = INFINITY, first = INFINITY, pt, end;
	double home = INFINITY;	/* the best pick's from where it was */
	int tag, pick = -1, old = -1;
	bool need_destage = false, host_waits = false, aged = false;
	unsigned int i, dpick = 0;
	double t;

	/*
	 * The disk starts when it became free, or when the first command
	 * it holds arrived, if later; with nothing from the host, it
	 * destages from when it had dirty data.
	 */
	for (tag = 0; tag < (int)h->depth; tag++)
		if (h->cmd[tag].pending && h->cmd[tag].arrival < first)
			first = h->cmd[tag].arrival;
	if (first < INFINITY)
		t = first > free ? first : free;
	else if (h->nr_dirty)
		t = h->dirty_t > free ? h->dirty_t : free;
	else
		return false;

	for (tag = 0; tag < (int)h->depth; tag++) {
		struct cmd *c = &h->cmd[tag];

		if (!c->pending || c->arrival > t)
			continue;
		if (c->op == UBLK_IO_OP_FLUSH) {
			need_destage = true;
			continue;
		}
		if (c->op == UBLK_IO_OP_WRITE && h->wce &&
		    !(c->flags & UBLK_IO_F_FUA)) {
			if (cache_room(h) >= c->nsect) {
				/* room again: into the cache, no head */
				dirty_add(h, c->lba, c->lba + c->nsect, t);
				c->pending = false;
				c->kind = K_CACHED_WRITE;
				complete(h, tag, t + P.overhead_ms / 1e3 +
					 xfer(c->nsect, P.iface_mbs));
				continue;
			}
			need_destage = true;
			continue;
		}
		host_waits = true;
		if (c->op == UBLK_IO_OP_READ && on_stream(h, c->lba, t))
			pt = 0;
		else
			pt = positioning(h, c->lba, c->op == UBLK_IO_OP_WRITE,
					 true, t);
		if (pt < best) {
			best = pt;
			pick = tag;
		}
		if (h->away) {
			pt = from_home(h, c, t);
			if (pt < home)
				home = pt;
		}
		if (c->arrival < oldest) {
			oldest = c->arrival;
			old = tag;
		}
	}
	if (old >= 0 && t - oldest > P.age_ms / 1e3) {
		pick = old;
		aged = true;
		need_destage = false;	/* a read waited too long */
	}

	if (pick >= 0 && !need_destage) {
		struct cmd *c = &h->cmd[pick];
		uint64_t cend = c->lba + c->nsect;

		c->pending = false;
		c->start = t;
		if (h->away) {
			/*
			 * From home the disk might have picked another
			 * command: compare with the best from there (the
			 * same one if it waited too long).
			 */
			c->back = positioning(h, c->lba,
					      c->op == UBLK_IO_OP_WRITE, true,
					      t) -
				  (aged ? from_home(h, c, t) : home);
			c->back_t = h->away_t;
			h->away = false;
		}
		if (c->op == UBLK_IO_OP_READ && on_stream(h, c->lba, t)) {
			/* the head is on it: read on until its end */
			double reached = t_lba(lba_t(h->s_lba) + t - h->s_t);

			c->kind = K_STREAM;
			h->n_stream++;
			if (reached <= h->s_cap) {
				end = h->s_t + lba_t(cend) - lba_t(h->s_lba);
				if (end < t + P.overhead_ms / 1e3)
					end = t + P.overhead_ms / 1e3;
			} else {
				/*
				 * read-ahead stopped at its cap: wait for
				 * the next sector to come round
				 */
				end = t + positioning(h, h->s_cap, false, true,
						      t) +
				      lba_t(cend) - lba_t(h->s_cap);
				h->s_lba = cend;
				h->s_t = end;
			}
		} else {
			stream_stop(h, t);
			c->kind = K_MECH;
			end = t + positioning(h, c->lba,
					      c->op == UBLK_IO_OP_WRITE, true,
					      t) +
			      lba_t(cend) - lba_t(c->lba);
			if (c->op == UBLK_IO_OP_READ) {
				h->s_start = c->lba;
				h->s_lba = cend;
				h->s_t = end;
			}
		}
		if (c->op == UBLK_IO_OP_READ) {
			/* read ahead from here while idle */
			h->s_live = true;
			h->s_cap = cend + P.readahead_kib * 2.0;
			if (c->kind == K_STREAM && h->s_cap > nr_sectors)
				h->s_cap = nr_sectors;
		}
		h->head_x = lba_x(cend);
		h->mech_busy = true;
		h->mech_tag = pick;
		h->mech_end = end;
		h->busy_s += end - t;
		return true;
	}
	if (!h->nr_dirty || (host_waits && !need_destage))
		return false;
	if (!need_destage) {
		/* on its own: only once the host has been quiet a while */
		double due = idle_due(h, free);

		if (due > now) {
			h->wake_at = due;
			return false;
		}
		if (due > t)
			t = due;
	}

	/* destage the dirty extent reached first, up to 1 MiB of it */
	best = INFINITY;
	for (i = 0; i < h->nr_dirty; i++) {
		pt = positioning(h, h->dirty[i].start, true, false, t);
		if (pt < best) {
			best = pt;
			dpick = i;
		}
	}
	stream_stop(h, t);
	h->destage = h->dirty[dpick];
	if (h->destage.end - h->destage.start > 2048)
		h->destage.end = h->destage.start + 2048;
	end = t + best + lba_t(h->destage.end) - lba_t(h->destage.start);
	if (!h->away)
		h->home_x = h->head_x;
	h->away = true;
	h->away_t = t;
	h->head_x = lba_x(h->destage.end);
	h->mech_busy = true;
	h->mech_tag = -1;
	h->wb_idle = !need_destage;
	h->destage_t = t;
	h->mech_end = end;
	h->busy_s += end - t;
	h->n_destage++;
	return true;
}

static void destage_done(struct hdd *h)
{
	struct extent *e;
	unsigned int i;

	for (i = 0; i < h->nr_dirty; i++)
		if (h->dirty[i].start == h->destage.start)
			break;
	if (i == h->nr_dirty)
		return;		/* rewritten meanwhile: merged elsewhere */
	e = &h->dirty[i];
	if (h->destage.end > e->end)
		h->destage.end = e->end;
	h->dirty_sect -= h->destage.end - e->start;
	e->start = h->destage.end;
	if (e->start >= e->end) {
		memmove(e, e + 1, (h->nr_dirty - i - 1) * sizeof(*e));
		h->nr_dirty--;
	}
}

/* Run the mechanism up to @t: finish what ended, start what can. */
static void mech_run(struct hdd *h, double t)
{
	int tag;

	h->wake_at = INFINITY;
	for (;;) {
		if (h->mech_busy) {
			if (h->mech_end > t)
				return;
			h->mech_busy = false;
			h->free_at = h->mech_end;
			if (h->mech_tag >= 0) {
				complete(h, h->mech_tag, h->mech_end);
			} else {
				if (h->trace)
					fprintf(h->trace,
						"%.6f %.6f %.6f 1 %llu %llu destage\n",
						h->destage_t, h->destage_t,
						h->mech_end,
						(unsigned long long)h->destage.start,
						(unsigned long long)(h->destage.end -
								     h->destage.start));
				destage_done(h);
			}
		}
		if (h->flush_waiting && !h->nr_dirty) {
			h->flush_waiting = false;
			for (tag = 0; tag < (int)h->depth; tag++)
				if (h->cmd[tag].pending &&
				    h->cmd[tag].op == UBLK_IO_OP_FLUSH) {
					h->cmd[tag].pending = false;
					h->cmd[tag].kind = K_FLUSH;
					complete(h, tag, h->free_at >
						 h->cmd[tag].arrival ?
						 h->free_at :
						 h->cmd[tag].arrival);
				}
		}
		if (!mech_start(h, h->free_at, t))
			return;
	}
}

/* ------------------------------------------------------------------ */
/* ublk plumbing. */

/* A 128-byte SQE (IORING_SETUP_SQE128): the command fills its tail. */
static void prep_cmd(struct io_uring_sqe *sqe, int fd, uint32_t op)
{
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
}

static int ctrl_cmd(struct io_uring *ring, int fd, uint32_t op,
		    struct ublksrv_ctrl_cmd *c)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	prep_cmd(sqe, fd, op);
	memcpy(sqe->cmd, c, sizeof(*c));
	ret = io_uring_submit(ring);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static void queue_io_cmd(struct hdd *h, uint32_t op, int tag, int32_t res)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&h->ring);
	struct ublksrv_io_cmd *c;

	if (!sqe) {
		io_uring_submit(&h->ring);
		sqe = io_uring_get_sqe(&h->ring);
		if (!sqe) {
			fprintf(stderr, "hdd: submission queue full\n");
			exit(1);
		}
	}
	prep_cmd(sqe, h->cdev, op);
	c = (struct ublksrv_io_cmd *)sqe->cmd;
	c->q_id = h->qid;
	c->tag = tag;
	c->result = res;
	c->addr = (uint64_t)(uintptr_t)h->buf[tag];
	sqe->user_data = tag;
	h->cmd[tag].busy = false;
}

static const char *const kind_name[] = {
	"-", "hit", "stream", "mech", "wcache", "flush"
};

/* Hand a completed command back, its data read from the store. */
static void commit(struct hdd *h, int tag)
{
	struct cmd *c = &h->cmd[tag];
	size_t len = c->nsect * 512UL;
	int32_t res = len;
	int dir = c->op <= UBLK_IO_OP_FLUSH ? c->op : 3;

	/*
	 * Without a store a read returns the tag's buffer as it is: zeros
	 * until a write lands in it.  Clearing it for every read costs more
	 * than the disk's transfer under an instruction clock (a byte-wise
	 * memset of 1 MiB counts a million instructions, 1 ms at -icount
	 * shift=0), time the disk did not spend and the trace would not see.
	 */
	if (c->op == UBLK_IO_OP_READ) {
		if (h->store >= 0 &&
		    pread(h->store, h->buf[tag], len, c->lba * 512) < 0)
			res = -errno;
	} else if (c->op == UBLK_IO_OP_FLUSH) {
		res = 0;
	}
	h->n_ops[dir]++;
	h->n_sect[dir] += c->nsect;
	if (h->trace) {
		fprintf(h->trace, "%.6f %.6f %.6f %d %llu %u %s",
			c->arrival, c->kind == K_MECH || c->kind == K_STREAM ?
			c->start : c->arrival, c->done, c->op,
			(unsigned long long)c->lba, c->nsect,
			kind_name[c->kind]);
		if (c->back_t > 0)
			fprintf(h->trace, " %.6f %.6f", c->back, c->back_t);
		fputc('\n', h->trace);
	}
	c->done = 0;
	queue_io_cmd(h, UBLK_U_IO_COMMIT_AND_FETCH_REQ, tag, res);
}

/* A request arrived for @tag at @t. */
static void arrive(struct hdd *h, int tag, double t)
{
	const struct ublksrv_io_desc *iod = &h->iod[tag];
	struct cmd *c = &h->cmd[tag];

	if (h->last_arrival > 0) {
		double gap = t - h->last_arrival;

		if (gap > P.idle_max_ms / 1e3)
			gap = P.idle_max_ms / 1e3;
		h->ia_mean += (gap - h->ia_mean) / P.idle_k;
	}
	h->last_arrival = t;

	c->busy = true;
	c->op = ublksrv_get_op(iod);
	c->flags = ublksrv_get_flags(iod);
	c->lba = iod->start_sector;
	c->nsect = iod->nr_sectors;
	c->arrival = t;
	c->done = 0;
	c->kind = K_NONE;
	c->back = 0;
	c->back_t = 0;
	if (c->op > UBLK_IO_OP_FLUSH) {
		/* not advertised (no discard parameters): refuse */
		queue_io_cmd(h, UBLK_U_IO_COMMIT_AND_FETCH_REQ, tag,
			     -EOPNOTSUPP);
		return;
	}
	if (c->op == UBLK_IO_OP_WRITE && h->store >= 0 &&
	    pwrite(h->store, h->buf[tag], c->nsect * 512UL,
		   c->lba * 512) < 0)
		perror("hdd: store write");
	if (!try_cache(h, tag, t))
		c->pending = true;
}

static void *queue_thread(void *arg)
{
	struct hdd *h = arg;
	struct io_uring_cqe *cqe;
	unsigned int tag;

	/* wake up when a command is due, not up to 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL);
	for (tag = 0; tag < h->depth; tag++)
		queue_io_cmd(h, UBLK_U_IO_FETCH_REQ, tag, 0);
	io_uring_submit(&h->ring);

	while (h->aborted < h->depth) {
		double t = now_s(), next = INFINITY;
		struct __kernel_timespec ts, *tsp = NULL;
		unsigned int head, seen = 0;
		int ret;

		mech_run(h, t);
		for (tag = 0; tag < h->depth; tag++) {
			double d = h->cmd[tag].done;

			if (d <= 0)
				continue;
			if (d <= t)
				commit(h, tag);
			else if (d < next)
				next = d;
		}
		if (h->mech_busy && h->mech_end < next)
			next = h->mech_end;
		if (!h->mech_busy && h->wake_at < next)
			next = h->wake_at;
		if (next < INFINITY) {
			double w = next - t;

			ts.tv_sec = (long long)w;
			ts.tv_nsec = (long long)((w - ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		ret = io_uring_submit_and_wait_timeout(&h->ring, &cqe, 1, tsp,
						       NULL);
		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			fprintf(stderr, "hdd: io_uring wait: %s\n",
				strerror(-ret));
			break;
		}
		t = now_s();
		io_uring_for_each_cqe(&h->ring, head, cqe) {
			int res = cqe->res;

			tag = cqe->user_data;
			seen++;
			if (res == UBLK_IO_RES_OK && tag < h->depth)
				arrive(h, tag, t);
			else
				h->aborted++;
		}
		io_uring_cq_advance(&h->ring, seen);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr,
		"usage: hdd [--depth 1|32] [--wce on|off] [--idle-delay on|off]\n"
		"           [--store FILE|none] [--trace FILE] [--capacity-gb N]\n"
		"           [--print-model]\n"
		"Serves /dev/ublkbN (printed on stdout once started) until\n"
		"SIGTERM or SIGINT; then prints its statistics on stderr.\n");
	exit(2);
}

static void print_model(void)
{
	int i;

	printf("rev_ms %.3f cylinders %.0f stream_s %.0f knee_ms %.3f\n",
	       t_rev * 1e3, n_cyl, t_stream, seek_knee);
	printf("mean_seek_ms %.3f\n", seek_mean(seek_knee));
	for (i = 0; i <= 10; i++)
		printf("seek d=%.1f %.3f ms, rate at %d%% %.1f MB/s\n",
		       i / 10.0, seek_curve(i / 10.0, seek_knee) * 1e3,
		       i * 10, P.rate_od_mbs *
		       (1.0 - lba_x(i / 10.0 * nr_sectors) * (1.0 - rho)));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "depth", required_argument, NULL, 'd' },
		{ "wce", required_argument, NULL, 'w' },
		{ "idle-delay", required_argument, NULL, 'i' },
		{ "store", required_argument, NULL, 's' },
		{ "trace", required_argument, NULL, 't' },
		{ "capacity-gb", required_argument, NULL, 'c' },
		{ "print-model", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct ublksrv_ctrl_dev_info info = { 0 };
	struct ublk_params params = { 0 };
	struct ublksrv_ctrl_cmd c = { 0 };
	const char *store = "none", *trace = NULL;
	static struct hdd h;
	struct io_uring ctrl;
	pthread_t thr;
	sigset_t sigs;
	char path[64];
	int ctl, opt, sig, ret;
	unsigned int i;
	bool model = false;

	h.depth = 1;
	h.wce = true;
	h.store = -1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			h.depth = atoi(optarg);
			if (h.depth < 1 || h.depth > MAX_DEPTH)
				usage();
			break;
		case 'w':
			h.wce = !strcmp(optarg, "on");
			break;
		case 'i':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				usage();
			h.idle_delay = !strcmp(optarg, "on");
			break;
		case 's':
			store = optarg;
			break;
		case 't':
			trace = optarg;
			break;
		case 'c':
			P.capacity_gb = atof(optarg);
			break;
		case 'p':
			model = true;
			break;
		default:
			usage();
		}
	}
	derive();
	if (model) {
		print_model();
		return 0;
	}
	if (strcmp(store, "none")) {
		h.store = open(store, O_RDWR | O_CREAT, 0600);
		if (h.store < 0 ||
		    ftruncate(h.store, (off_t)nr_sectors * 512) < 0) {
			perror(store);
			return 1;
		}
	}
	if (trace) {
		h.trace = fopen(trace, "w");
		if (!h.trace) {
			perror(trace);
			return 1;
		}
		/* whole lines, at once: it is read while the disk runs */
		setvbuf(h.trace, NULL, _IOLBF, 0);
	}

	ctl = open("/dev/ublk-control", O_RDWR);
	if (ctl < 0) {
		perror("/dev/ublk-control");
		return 1;
	}
	ret = io_uring_queue_init(4, &ctrl, IORING_SETUP_SQE128);
	if (ret < 0) {
		fprintf(stderr, "io_uring: %s\n", strerror(-ret));
		return 1;
	}

	info.nr_hw_queues = 1;
	info.queue_depth = h.depth;
	info.max_io_buf_bytes = MAX_IO_BYTES;
	info.dev_id = -1;
	info.flags = UBLK_F_CMD_IOCTL_ENCODE;
	c.dev_id = -1;
	c.queue_id = -1;
	c.addr = (uint64_t)(uintptr_t)&info;
	c.len = sizeof(info);
	ret = ctrl_cmd(&ctrl, ctl, UBLK_U_CMD_ADD_DEV, &c);
	if (ret < 0) {
		fprintf(stderr, "hdd: add device: %s\n", strerror(-ret));
		return 1;
	}
	c.dev_id = info.dev_id;

	params.len = sizeof(params);
	params.types = UBLK_PARAM_TYPE_BASIC;
	params.basic.attrs = UBLK_ATTR_ROTATIONAL |
			     (h.wce ? UBLK_ATTR_VOLATILE_CACHE |
				      UBLK_ATTR_FUA : 0);
	params.basic.logical_bs_shift = 9;
	params.basic.physical_bs_shift = 12;
	params.basic.io_opt_shift = 12;
	params.basic.io_min_shift = 12;
	params.basic.max_sectors = MAX_IO_BYTES >> 9;
	params.basic.dev_sectors = nr_sectors;
	c.addr = (uint64_t)(uintptr_t)&params;
	c.len = sizeof(params);
	ret = ctrl_cmd(&ctrl, ctl, UBLK_U_CMD_SET_PARAMS, &c);
	if (ret < 0) {
		fprintf(stderr, "hdd: set parameters: %s\n", strerror(-ret));
		goto del;
	}

	snprintf(path, sizeof(path), "/dev/ublkc%u", info.dev_id);
	for (i = 0; i < 100 && (h.cdev = open(path, O_RDWR)) < 0; i++)
		usleep(10000);
	if (h.cdev < 0) {
		perror(path);
		goto del;
	}
	h.iod = mmap(NULL, (h.depth * sizeof(*h.iod) + 4095) & ~4095UL,
		     PROT_READ, MAP_SHARED | MAP_POPULATE, h.cdev,
		     UBLKSRV_CMD_BUF_OFFSET);
	if (h.iod == MAP_FAILED) {
		perror("mmap");
		goto del;
	}
	for (i = 0; i < h.depth; i++) {
		if (posix_memalign(&h.buf[i], 4096, MAX_IO_BYTES)) {
			perror("posix_memalign");
			goto del;
		}
		memset(h.buf[i], 0, MAX_IO_BYTES);
	}
	ret = io_uring_queue_init(2 * h.depth + 8, &h.ring,
				  IORING_SETUP_SQE128);
	if (ret < 0) {
		fprintf(stderr, "io_uring: %s\n", strerror(-ret));
		goto del;
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	pthread_create(&thr, NULL, queue_thread, &h);

	c.addr = 0;
	c.len = 0;
	c.data[0] = getpid();
	ret = ctrl_cmd(&ctrl, ctl, UBLK_U_CMD_START_DEV, &c);
	if (ret < 0) {
		fprintf(stderr, "hdd: start: %s\n", strerror(-ret));
		goto del;
	}
	printf("/dev/ublkb%u\n", info.dev_id);
	fflush(stdout);

	sigwait(&sigs, &sig);
	ret = ctrl_cmd(&ctrl, ctl, UBLK_U_CMD_STOP_DEV, &c);
	if (ret < 0)
		fprintf(stderr, "hdd: stop: %s\n", strerror(-ret));
	pthread_join(thr, NULL);
	io_uring_queue_exit(&h.ring);
	munmap((void *)h.iod, (h.depth * sizeof(*h.iod) + 4095) & ~4095UL);
	close(h.cdev);
	fprintf(stderr,
		"hdd: reads %llu (%llu sectors) writes %llu (%llu sectors) flushes %llu; cache hits %llu, streamed %llu, destages %llu; busy %.3f s\n",
		(unsigned long long)h.n_ops[0], (unsigned long long)h.n_sect[0],
		(unsigned long long)h.n_ops[1], (unsigned long long)h.n_sect[1],
		(unsigned long long)h.n_ops[2], (unsigned long long)h.n_hit,
		(unsigned long long)h.n_stream, (unsigned long long)h.n_destage,
		h.busy_s);
	if (h.trace)
		fclose(h.trace);
del:
	ret = ctrl_cmd(&ctrl, ctl, UBLK_U_CMD_DEL_DEV, &c);
	if (ret < 0)
		fprintf(stderr, "hdd: delete: %s\n", strerror(-ret));
	return 0;
}
