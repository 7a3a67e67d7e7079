"""What opening the rewind picker and planning the undo cost on a long session of file writes.

    PYTHONPATH=. .venv/bin/python bench/rewind_plan.py

2,000 write_file calls over 50 files (~10 KB each, every earlier content kept): the record is read
again as resume reads it, the points matched, and the undo to the first message planned.
"""
import asyncio, json, time, tempfile
from pathlib import Path
from app.core.history import Message, ToolCall
from app.core.session.recorder import SessionRecorder
from app.core.session.records import SUBTYPE_FILE_CHANGE
from app.core.session.resume import load_session
from app.core.session.rewind import rewind_points
from app.core.session.rewind_undo import plan_undo
from app.core.tools.base import ToolContext
from app.core.tools.write_file import WriteFileTool

async def main():
    tmp = Path(tempfile.mkdtemp()); root = tmp / "p"; root.mkdir()
    ctx = ToolContext(root=root); rec = SessionRecorder(tmp / "chats", cwd=root, version="m")
    history = []; tool = WriteFileTool()
    for i in range(2000):
        u = Message.user(f"turn {i}: rewrite file {i % 50}"); rec.append_message(u); history.append(u)
        args = {"path": f"src/f{i % 50}.py", "content": f"# v{i}\n" + "x = 1\n" * 1700}
        call = ToolCall(f"c{i}", "write_file", json.dumps(args)); a = Message(role="assistant", tool_calls=[call])
        rec.append_message(a); history.append(a)
        r = await tool.run(args, ctx)
        rec.append_system(SUBTYPE_FILE_CHANGE, {"toolCallId": call.id, "tool": "write_file", **r.file_change.to_payload()})
        t = Message.tool_result(call, r.output); rec.append_message(t); history.append(t)
    size = rec.path.stat().st_size
    for _ in range(3):
        t0 = time.perf_counter(); loaded = load_session(rec.path); t1 = time.perf_counter()
        pts = rewind_points(history, loaded); t2 = time.perf_counter()
        plan = plan_undo(loaded.records, pts[-1].uuid, root); t3 = time.perf_counter()
        print(f"record {size/1e6:.1f} MB, 2000 writes to 50 files: load {t1-t0:.3f} s, points {t2-t1:.4f} s, plan {t3-t2:.3f} s, {len(plan.restores)} restores")
if __name__ == "__main__":
    asyncio.run(main())
