# SPDX-License-Identifier: GPL-2.0
"""Per-read latencies and read-to-read cycles of one reader from
pair.sh's blkparse output (ACTION SECONDS PID SECTOR BYTES): the block
layer's part (Q to the last C of a read's nine requests), the gap from
the last completion to the reader's next read, and what happened in the
slow gaps.  Requests are matched by sector: in pair.sh the prio-0
reader passes over sectors the other read earlier in the window, so only
the figures of the reader named by PID are to be trusted.

    cycles.py TRACE PID
"""
import sys, collections
lines=[l.split() for l in open(sys.argv[1])]
# per read (Q sector) -> times
reads=[]; cur={}
g={}; d={}; c={}
pid_of={}
ev=[]
for f in lines:
    if len(f)<5: continue
    a,t,p,s,n=f[0],float(f[1]),f[2],int(f[3]),int(f[4])
    if a=='Q':
        reads.append((t,p,s))
    elif a=='G': g[s]=t; pid_of[s]=p
    elif a=='D': d[s]=t; ev.append(('D',t,s))
    elif a=='C': c[s]=t; ev.append(('C',t,s))
pids=collections.Counter(p for _,p,_ in reads)
print(pids)
# for each read: 9 requests sectors s + k*255
res=collections.defaultdict(list)
for t,p,s in reads:
    secs=[s+k*255 for k in range(9)]
    if not all(x in c and x in d and x in g for x in secs): continue
    end=max(c[x] for x in secs)
    lat=end-t
    gd=[d[x]-g[x] for x in secs]
    res[p].append((lat,t,s,gd,[c[x]-d[x] for x in secs]))
for p,v in res.items():
    v.sort()
    n=len(v)
    print(p,n,'p50 %.0f p90 %.0f p95 %.0f p99 %.0f'%tuple(v[int(n*q)][0]*1e6 for q in (0.5,0.9,0.95,0.99)))
    slow=[x for x in v if x[0]>0.47]
    print(' slow',len(slow))
    # which request is delayed in slow ones
    cnt=collections.Counter()
    for lat,t,s,gd,svc in slow:
        k=max(range(9),key=lambda i:gd[i]); cnt[k]+=1
    print(' most-delayed index',cnt)
    for lat,t,s,gd,svc in slow[:5]:
        print('  lat %.0f'%(lat*1e6),'G->D us',[round(x*1e6) for x in gd],'svc',[round(x*1e6) for x in svc])
    fast=[x for x in v if x[0]<0.4]
    for lat,t,s,gd,svc in fast[:2]:
        print('  fast lat %.0f'%(lat*1e6),'G->D us',[round(x*1e6) for x in gd],'svc',[round(x*1e6) for x in svc])
# cycles of A
A=sorted([(t,s) for t,p,s in reads if p==sys.argv[2]])
lastc={}
cyc=[]
for i in range(len(A)-1):
    t,s=A[i]; t2,_=A[i+1]
    secs=[s+k*255 for k in range(9)]
    if not all(x in c for x in secs): continue
    end=max(c[x] for x in secs)
    cyc.append((t2-t, end-t, t2-end, t, end, t2))
cyc.sort()
n=len(cyc)
print('cycle p50 %.0f p90 %.0f p95 %.0f p99 %.0f'%tuple(cyc[int(n*q)][0]*1e6 for q in (0.5,0.9,0.95,0.99)))
gaps=sorted(x[2] for x in cyc)
print('C->nextQ p50 %.0f p90 %.0f p95 %.0f p99 %.0f'%tuple(gaps[int(n*q)]*1e6 for q in (0.5,0.9,0.95,0.99)))
# events in slow gaps
allev=sorted([(float(f[1]),f[0],f[2],int(f[3])) for f in lines if len(f)>=5])
import bisect
ts=[e[0] for e in allev]
slow=[x for x in cyc if x[2]>250e-6][:8]
for x in slow:
    i=bisect.bisect_left(ts,x[4]-1e-9); j=bisect.bisect_right(ts,x[5]+1e-9)
    print('gap %.0f us:'%(x[2]*1e6), ' '.join('%s%s@%.0f'%(e[1],e[2][-1],(e[0]-x[4])*1e6) for e in allev[i:j]))
tot=sum(x[0] for x in cyc); slowx=sum(x[0]-0.395e-3 for x in cyc if x[0]>0.45e-3)
print('cycles',n,'mean %.1f us'%(tot/n*1e6),'excess of slow cycles %.2f %%'%(slowx/tot*100), 'slow', sum(1 for x in cyc if x[0]>0.45e-3))
