#!/usr/bin/env python3
"""Writes a synthetic OpenCode database of about SIZE MB for scripts/bench.sh.

   scripts/gen-opencode-db.py --size-mb 1000 --seed 1 --out DIR

DIR/opencode.db gets the schema of OpenCode 1.18.33 (the CREATE statements
of tests/fixtures/opencode-1.18.33/run/dump.sql, its rows left out) and
sessions shaped as the pinned client writes them (appendix F of
docs/transcript-format.md), in the conversation shape mix of the Claude
Code generator (examples/gen_archive.rs): per project a repository, one
project holding ~40% of the sessions and the rest geometrically fewer;
sessions log-uniform in length (4 to 2000 turns); turns of a user message
with a text part, an assistant step with step-start, `tool` parts with their
output (30% of steps 2-4 parallel calls; 1 output in 200 of 100 KB-2 MB; 3%
of calls a `task` whose sub-agent is a child session, `parent_id` set, of
its own tool turns), step-finish, and an assistant step with a text part;
a compaction (a user message whose one part is `compaction`, then the
assistant summary, `summary: true`) every 1.5-5 MB of a session; 5% of
sessions with a pending `/undo` (the `revert` marker on a late prompt, its
messages left in place); the event log of each message; and every tenth
session a `run --fork` of the one before it (its first turns copied under
new ids with the originals' times, titled " (fork #1)"). Deterministic for
a seed. Only Python's own sqlite3 module is needed."""
import argparse, json, os, random, sqlite3, sys

ap = argparse.ArgumentParser()
ap.add_argument("--size-mb", type=int, required=True)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--projects", type=int, default=10)
ap.add_argument("--out", required=True)
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
dump = open(os.path.join(root, "tests/fixtures/opencode-1.18.33/run/dump.sql"), encoding="utf-8").read()
os.makedirs(a.out, exist_ok=True)
path = os.path.join(a.out, "opencode.db")
for f in (path, path + "-wal", path + "-shm", path + "-journal"):
    if os.path.exists(f):
        os.remove(f)
db = sqlite3.connect(path)
# The schema alone: each CREATE statement of the dump (they end with ");").
stmts, cur = [], None
for line in dump.splitlines():
    if cur is None and line.startswith("CREATE "):
        cur = [line]
    elif cur is not None:
        cur.append(line)
    if cur is not None and line.rstrip().endswith(";"):
        stmts.append("\n".join(cur)); cur = None
for s in stmts:
    db.execute(s)
db.execute("PRAGMA journal_mode = DELETE")
db.execute("PRAGMA synchronous = OFF")
rng = random.Random(a.seed)
WORDS = ("the of to and a in is it you that he was for on are with as his they be at one have this from or had by "
         "word but what some we can out other were all there when up use your how said an each she which do their "
         "time if will way about many then them write would like so these her long make thing see him two has look "
         "more day could go come did number sound no most people my over know water than call first who may down "
         "side been now find any new work part take get place made live where after back little only round man year "
         "fn let mut impl struct enum match Ok Err Some None return self crate use pub mod test assert cargo build").split()
def text(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))
counter = [0]
def ident(prefix):
    counter[0] += 1
    return f"{prefix}_{counter[0]:012x}{rng.getrandbits(48):012x}"
now = [1796000000000]
def tick(ms=1000):
    now[0] += rng.randint(1, ms); return now[0]
def insert_message(sid, mid, t, data, parts):
    db.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
               (mid, sid, t, t, json.dumps(data)))
    for pid, pt, pd in parts:
        db.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)",
                   (pid, mid, sid, pt, pt, json.dumps(pd)))
def event(sid, seq, ty, data):
    db.execute("INSERT INTO event (id, aggregate_id, seq, type, data) VALUES (?,?,?,?,?)",
               (ident("evt"), sid, seq, ty, json.dumps(data)))
def session_row(sid, pid, title, t, wt, parent=None):
    db.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, "
               "time_updated) VALUES (?,?,?,?,?,?,?,?,?)", (sid, pid, parent, "slug", wt, title, "1.18.33", t, t))
    db.execute("INSERT INTO event_sequence (aggregate_id, seq) VALUES (?, 0)", (sid,))
projects = []
for p in range(a.projects):
    pid = f"{rng.getrandbits(160):040x}"
    wt = f"/home/user/src/project-{p}"
    db.execute("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?,?,?,?,?,?)",
               (pid, wt, "git", now[0], now[0], "[]"))
    projects.append((pid, wt))
model = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}
target = a.size_mb * 10**6
sessions = messages = 0
# One project ~40% of the sessions, the others geometrically fewer.
weights = [0.4] + [0.6 * 0.5 ** i for i in range(1, a.projects)]
def tokens_of():
    return {"total": 1000, "input": rng.randint(500, 20000), "output": rng.randint(10, 900), "reasoning": 0,
            "cache": {"read": rng.randint(0, 50000), "write": 0}}
def adata_of(u, wt, t, finish, **extra):
    d = {"parentID": u, "role": "assistant", "mode": "build", "agent": "build", "path": {"cwd": wt, "root": wt},
         "cost": 0, "tokens": tokens_of(), "modelID": model["modelID"], "providerID": model["providerID"],
         "time": {"created": t, "completed": t + 900}, "finish": finish}
    d.update(extra)
    return d
def turns(sid, pid, wt, n, sub):
    """Writes n turns into session sid; returns the messages written and their bytes."""
    global messages
    seq, written, size, next_compaction = 0, [], 0, rng.randint(1_500_000, 5_000_000)
    for turn in range(n):
        if not sub and size >= next_compaction:
            # A compaction: a user message whose one part is `compaction`, then the summary.
            u = ident("msg"); t = tick()
            udata = {"role": "user", "time": {"created": t}, "agent": "build", "model": model}
            uparts = [(ident("prt"), t, {"type": "compaction", "auto": rng.random() < 0.5})]
            insert_message(sid, u, t, udata, uparts); written.append((u, t, udata, uparts))
            s1 = ident("msg"); t1 = tick()
            sdata = adata_of(u, wt, t1, "stop", mode="compaction", agent="compaction", summary=True)
            sparts = [(ident("prt"), t1, {"type": "step-start"}),
                      (ident("prt"), t1 + 1, {"type": "text", "text": "Summary: " + text(rng.randint(100, 600))}),
                      (ident("prt"), t1 + 2, {"type": "step-finish", "reason": "stop", "tokens": tokens_of(), "cost": 0})]
            insert_message(sid, s1, t1, sdata, sparts); written.append((s1, t1, sdata, sparts))
            messages += 2
            size, next_compaction = 0, rng.randint(1_500_000, 5_000_000)
        u = ident("msg"); t = tick()
        udata = {"role": "user", "time": {"created": t}, "agent": "build", "model": model}
        uparts = [(ident("prt"), t, {"type": "text", "text": text(rng.randint(5, 60))})]
        insert_message(sid, u, t, udata, uparts); written.append((u, t, udata, uparts))
        event(sid, seq, "message.updated.1", {"sessionID": sid, "info": dict(udata, id=u, sessionID=sid)}); seq += 1
        a1 = ident("msg"); t1 = tick()
        adata = adata_of(u, wt, t1, "tool-calls")
        aparts = [(ident("prt"), t1, {"type": "step-start"})]
        for c in range(rng.randint(2, 4) if rng.random() < 0.3 else 1):
            big = rng.random() < 0.005
            out = text(rng.randint(16_000, 330_000) if big else rng.randint(50, 1500))
            size += len(out)
            if not sub and rng.random() < 0.03:
                # A task call: its sub-agent is a child session of its own tool turns.
                child = ident("ses")
                session_row(child, pid, "Sub task " + text(3), tick(), wt, parent=sid)
                turns(child, pid, wt, rng.randint(2, 6), True)
                state = {"status": "completed", "input": {"description": "Sub task", "prompt": text(8),
                         "subagent_type": "general"}, "title": "Sub task", "time": {"start": t1, "end": t1 + 500},
                         "output": f'<task id="{child}" state="completed">\n<task_result>\n{out}\n</task_result>\n</task>',
                         "metadata": {"parentSessionId": sid, "sessionId": child, "model": model, "truncated": False}}
                aparts.append((ident("prt"), t1 + 1, {"type": "tool", "tool": "task", "callID": ident("call"), "state": state}))
            else:
                aparts.append((ident("prt"), t1 + 1, {"type": "tool", "tool": "bash", "callID": ident("call"), "state": {
                    "status": "completed", "input": {"command": "cargo test " + text(2), "description": text(3)},
                    "output": out, "title": text(3), "metadata": {}, "time": {"start": t1, "end": t1 + 500}}}))
        aparts.append((ident("prt"), t1 + 2, {"type": "step-finish", "reason": "tool-calls", "tokens": adata["tokens"], "cost": 0}))
        insert_message(sid, a1, t1, adata, aparts); written.append((a1, t1, adata, aparts))
        a2 = ident("msg"); t2 = tick()
        bdata = dict(adata, time={"created": t2, "completed": t2 + 500}, finish="stop")
        bparts = [(ident("prt"), t2, {"type": "step-start"}),
                  (ident("prt"), t2 + 1, {"type": "text", "text": text(rng.randint(20, 400))}),
                  (ident("prt"), t2 + 2, {"type": "step-finish", "reason": "stop", "tokens": adata["tokens"], "cost": 0})]
        insert_message(sid, a2, t2, bdata, bparts); written.append((a2, t2, bdata, bparts))
        messages += 3
    return written
last = None  # the previous session: its project and messages as written, for a fork
while True:
    fork = last is not None and sessions % 10 == 9
    pid, wt = last[0] if fork else rng.choices(projects, weights)[0]
    sid = ident("ses")
    created = tick(60000)
    session_row(sid, pid, ("Title " + text(4)) + (" (fork #1)" if fork else ""), created, wt)
    if fork:
        # The first turns of the session before, copied: new ids, the originals' times.
        remap = {}
        for (mid, t, data, parts) in last[1][: 3 * rng.randint(1, 3)]:
            nid = ident("msg"); remap[mid] = nid
            d = dict(data)
            if "parentID" in d:
                d["parentID"] = remap.get(d["parentID"], d["parentID"])
            insert_message(sid, nid, t, d, [(ident("prt"), pt, pd) for (_, pt, pd) in parts])
            messages += 1
    written = turns(sid, pid, wt, int(2 ** rng.uniform(2, 11)), False)
    if rng.random() < 0.05:
        # A pending /undo: the revert marker on a late prompt, its messages left in place.
        prompts = [m for m in written if m[2]["role"] == "user"]
        at = prompts[max(0, len(prompts) - rng.randint(1, 3))][0]
        db.execute("UPDATE session SET revert = ? WHERE id = ?", (json.dumps({"messageID": at}), sid))
    last = ((pid, wt), written)
    sessions += 1
    db.commit()
    if db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0] >= target:
        break
db.commit()
db.close()
print(f"{path}: {os.path.getsize(path)} bytes, {sessions} sessions, {messages} messages, {len(projects)} projects",
      file=sys.stderr)
