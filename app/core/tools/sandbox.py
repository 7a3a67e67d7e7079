"""The OS sandbox for shell commands that run without the user's approval (Linux: Landlock + a network namespace).

Parsing bash is a race an attacker wins sooner or later, so a command the program runs on its own (the
read-only class in speculation, the memory agents, a skill's grant) does not rely on the parser alone:
it runs in a child that, between fork and exec, restricts itself with Landlock (kernel >= 5.13, no
privilege needed; direct syscalls, because no registry package wraps them and the three calls take a
page of ctypes):

- the whole file system readable and executable, writable nowhere but a private temp dir (TMPDIR points
  there) and ``/dev/null``; from ABI 3 truncation is covered too;
- no TCP: from ABI 4 binding and connecting are handled with no port allowed; and, where the kernel lets
  an unprivileged process have one (or the agent runs as root), a network namespace of its own, so no
  packet of any protocol leaves; from ABI 6 it cannot signal processes outside the sandbox nor reach
  their abstract UNIX sockets.

Landlock cannot be undone by the child or anything it starts (``no_new_privs`` is set first), and it
applies to every descendant. Measured on this project's machine (bench/shell.py): the restriction itself
costs well under a millisecond; the namespace a few.

Where Landlock is missing (another OS, an old kernel, a seccomp profile that blocks the calls), nothing
runs unasked: :func:`sandbox_status` says so and why, and the callers ask instead. A failure while the
child restricts itself ends the child before exec: a command never runs half-contained.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from app.dataclass import dataclass

# Syscall numbers: the same on x86_64 and aarch64 (the generic table), and on every 64-bit arch since 5.13.
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000

# File-system rights, by the ABI that introduced them.
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_WRITE_RIGHTS_V1 = sum(1 << n for n in range(4, 13))  # remove_dir .. make_sym
_REFER = 1 << 13  # ABI 2
_TRUNCATE = 1 << 14  # ABI 3
_IOCTL_DEV = 1 << 15  # ABI 5
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

READ_RIGHTS = _EXECUTE | _READ_FILE | _READ_DIR
_SUPPORTED = ("x86_64", "aarch64", "arm64")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: a u64 then an s32
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@dataclass(frozen=True)
class SandboxStatus:
    """Whether commands can be contained here, and in words a person reads."""

    available: bool
    abi: int = 0
    reason: str = ""  # why not, when not available

    def describe(self) -> str:
        if not self.available:
            return f"sandbox: none ({self.reason}); commands the program would run on its own ask first"
        net = "no network" if self.abi >= 4 else "no network where a namespace can be had (TCP not covered by this kernel's Landlock)"
        return f"sandbox: landlock (ABI {self.abi}): commands run unasked read everything, write only a private temp dir, {net}"


@lru_cache(maxsize=1)
def sandbox_status() -> SandboxStatus:
    """Landlock's ABI on this kernel, asked once (the answer cannot change while the program runs)."""
    if not sys.platform.startswith("linux"):
        return SandboxStatus(False, reason=f"{sys.platform} has no Landlock; Seatbelt is not used yet")
    if platform.machine() not in _SUPPORTED:
        return SandboxStatus(False, reason=f"Landlock's calls are not wired for {platform.machine()}")
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        abi = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError) as exc:
        return SandboxStatus(False, reason=f"the C library cannot be called ({exc})")
    if abi < 1:
        errno = ctypes.get_errno()
        why = {38: "the kernel is older than 5.13", 95: "Landlock is not enabled in this kernel (lsm=)"}.get(errno, os.strerror(errno))
        return SandboxStatus(False, reason=f"no Landlock: {why}")
    return SandboxStatus(True, abi=abi)


@dataclass(frozen=True)
class Confinement:
    """What one sandboxed command may touch: its private temp dir (removed by the caller afterwards)."""

    temp_dir: Path

    @classmethod
    def create(cls) -> Confinement:
        return cls(Path(tempfile.mkdtemp(prefix="agentctx-sandbox-")))

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` pointed at the private temp dir, and git told to take no optional locks (it may not write)."""
        return {**env, "TMPDIR": str(self.temp_dir), "TMP": str(self.temp_dir), "TEMP": str(self.temp_dir), "GIT_OPTIONAL_LOCKS": "0"}


def confining_preexec(confinement: Confinement, status: SandboxStatus, then: Callable[[], None] | None = None) -> Callable[[], None]:
    """A ``preexec_fn`` that restricts the child before exec; any failure ends it with status 126.

    Everything that allocates (the library handle, the structures, the rights) is prepared here in the
    parent; the child only makes system calls and opens two paths.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    abi = status.abi
    fs = READ_RIGHTS | _WRITE_RIGHTS_V1 | _WRITE_FILE
    fs |= _REFER if abi >= 2 else 0
    fs |= _TRUNCATE if abi >= 3 else 0
    fs |= _IOCTL_DEV if abi >= 5 else 0
    ruleset = _RulesetAttr(fs, (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0, (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if abi >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    everything_writable = fs & ~_IOCTL_DEV
    rules = [
        (b"/", _PathBeneathAttr(READ_RIGHTS, -1)),
        (os.fsencode(confinement.temp_dir), _PathBeneathAttr(everything_writable, -1)),
        (b"/dev/null", _PathBeneathAttr(_READ_FILE | _WRITE_FILE | (_TRUNCATE if abi >= 3 else 0), -1)),
    ]
    uid, gid = os.getuid(), os.getgid()
    maps = [(b"/proc/self/setgroups", b"deny"), (b"/proc/self/uid_map", b"%d %d 1" % (uid, uid)), (b"/proc/self/gid_map", b"%d %d 1" % (gid, gid))]

    def fail(step: str) -> None:
        os.write(2, b"agentctx sandbox: could not " + step.encode() + b"; the command did not run\n")
        os._exit(126)

    def preexec() -> None:
        if then is not None:
            then()
        _private_network(libc, uid, maps)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            fail("set no_new_privs")
        fd = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(ruleset), ctypes.c_size_t(size), ctypes.c_uint32(0))
        if fd < 0:
            fail("create the Landlock ruleset")
        for path, rule in rules:
            try:
                rule.parent_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                fail("open " + os.fsdecode(path))
            if libc.syscall(_SYS_ADD_RULE, fd, ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                fail("add a Landlock rule for " + os.fsdecode(path))
            os.close(rule.parent_fd)
        if libc.syscall(_SYS_RESTRICT_SELF, fd, ctypes.c_uint32(0)) != 0:
            fail("restrict itself with Landlock")
        os.close(fd)

    return preexec


def _private_network(libc: ctypes.CDLL, uid: int, maps: list[tuple[bytes, bytes]]) -> bool:
    """A network namespace of the child's own (only a loopback that is down); False where none can be had.

    As root one call does it; otherwise a user namespace comes first, with the child's own uid and gid
    mapped to themselves so files keep their owners. Landlock's TCP rules still hold where this fails.
    """
    if uid == 0:
        return libc.unshare(_CLONE_NEWNET) == 0
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:
        return False
    for path, text in maps:
        try:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, text)
            finally:
                os.close(fd)
        except OSError:
            return True  # the namespace stands; unmapped ids only read as nobody
    return True
