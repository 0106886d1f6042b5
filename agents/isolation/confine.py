"""What an isolated agent's process may touch, enforced by the kernel (Linux Landlock).

An agent's process runs as the same user as the run, so without more it could read what the
run's user can: the results folder (whose manifest holds the run's secret), the command lines
of its ancestors in ``/proc`` (``--out``, ``--secret``), the user's other files; it could
connect to a Dask scheduler or signal the run. Before it runs any of the agent's code, the
child confines itself (:func:`confine`) and everything it forks, for good:

* files: read (and execute) only the Python installation, the system's libraries and
  configuration, the packages of giftsim and its games (and the folder of a trusted agent's
  own module) and Numba's cache folder (compiled code, generated drivers: the run loads them,
  so the child must not write them); list the directories of the import path; read the
  machine's figures in ``/proc`` (memory, processors) and the template's own ``/proc`` folder;
  read and write only its own temporary folder (where it generates its own drivers) and
  ``/dev``'s null, zero and random devices. Nothing else: no other process's ``/proc``
  folder (command line, environment);
* network: no socket of any kind (a seccomp filter on ``socket``: TCP, UDP, MPTCP, raw,
  Unix sockets named by a path), besides Landlock's TCP rules;
* no capability, even when the run is root's (no raw devices, no other owners' files);
* no signal to, and no abstract Unix socket of, a process outside its own confinement.

Landlock is in Linux since 5.13 (networking since 6.7, signals since 6.12); :func:`confine`
uses what the kernel has and says which (``abi``: 0 where there is none, e.g. not Linux,
and then nothing is confined).
"""

import ctypes
import os
import platform
import sys

# Landlock's system calls (the same numbers on x86_64 and aarch64) and constants.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_VERSION = 1  # landlock_create_ruleset flag: ask the ABI version
_PATH_BENEATH = 1
_NO_NEW_PRIVS, _GET_NO_NEW_PRIVS = 38, 39  # prctl
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
_MAKE_CHAR, _MAKE_BLOCK = 1 << 6, 1 << 11
_FS_BITS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)  # bits a file rule takes
_NET_ALL = 3  # bind and connect TCP (ABI 4)
_SCOPE_ALL = 3  # abstract Unix sockets and signals (ABI 6)
READ = EXECUTE | READ_FILE | READ_DIR
SYSTEM = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/sys/devices/system/cpu")
# of /etc, what the dynamic loader, the C library and Python read (not the whole folder: it
# holds the machine's secrets, such as /etc/shadow, which a bot run by root could read)
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "passwd")
ETC += ("group", "host.conf", "gai.conf", "locale.alias", "mime.types", "os-release")
SYSTEM += tuple(f"/etc/{name}" for name in ETC)
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
# what of /proc libraries read at import (psutil, numba, NumPy): the machine's, and the
# process's own folder (``/proc/self`` when the rule is made: the template's, not a worker's);
# never another process's (its command line, environment, memory)
PROC = ("/proc/meminfo", "/proc/cpuinfo", "/proc/stat", "/proc/loadavg", "/proc/uptime")
PROC += ("/proc/version", "/proc/filesystems", "/proc/sys", "/proc/self")


class _Ruleset(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version (0: none here)."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    version = libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    return max(int(version), 0)


def package_folders(names) -> list[str]:
    """The folders of the top-level packages ``names`` (giftsim's and its games')."""
    import importlib.util

    found = []
    for name in dict.fromkeys(n.split(".")[0] for n in names):
        spec = importlib.util.find_spec(name)
        found += list(spec.submodule_search_locations or []) if spec else []
    return found


def places(packages, paths, cache: str | None, folder: str) -> dict[str, list[str]]:
    """The paths a confined child may reach: ``read`` (files and directories beneath: the
    system, the Python installation, ``packages`` and Numba's ``cache``: the run loads
    compiled code and generated drivers from it, so a child must not write there), ``list``
    (directory listings only: the import path ``paths``), ``write`` (everything beneath:
    ``folder``)."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    read = [*SYSTEM, *PROC, *sorted(prefixes), *packages, *([cache] if cache else [])]
    listed = [p for p in [*sys.path, *paths] if os.path.isabs(p)]
    return {"read": read, "list": listed, "write": [folder], "devices": list(DEVICES)}


def read_only_cache() -> None:
    """Let Numba load from its cache folder without writing it (a confined child): it picks
    its cache folder only if it can write there, and saves what it compiles; here it takes the
    folder as it is and saves nothing (what the child compiles, it compiles each time)."""
    from numba.core import caching

    locator, cache = getattr(caching, "UserProvidedCacheLocator", None), caching.Cache
    if locator is None or not hasattr(cache, "save_overload"):  # another Numba: it then
        return  # caches in the child's own folder (its home), compiling what it runs
    locator.ensure_cache_path = lambda self: None
    cache.save_overload = lambda self, sig, data: None


def confine(allowed: dict[str, list[str]]) -> int:
    """Confine this process and its children to ``allowed`` (:func:`places`), as much as the
    kernel can; the ABI version used (0: not confined). Irreversible."""
    version = abi()
    if version == 0:
        return 0
    fs = _FS_BITS[max(v for v in _FS_BITS if v <= version)]
    libc = ctypes.CDLL(None, use_errno=True)
    attr = _Ruleset(fs, _NET_ALL if version >= 4 else 0, _SCOPE_ALL if version >= 6 else 0)
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        writes = fs & ~(_MAKE_CHAR | _MAKE_BLOCK)  # no device nodes, even for root
        for kind, access in (("read", READ), ("list", READ_DIR), ("write", writes)):
            for path in allowed[kind]:
                _allow(libc, ruleset, path, access & fs)
        for path in allowed["devices"]:
            _allow(libc, ruleset, path, (READ_FILE | WRITE_FILE) & fs)
        if libc.prctl(_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    _drop_capabilities(libc)
    _no_sockets(libc)
    return version


def scope_signals() -> None:
    """Put this process (a worker or a probe of a confined template) and all it forks in a
    Landlock domain of its own, within the template's, that may signal nothing outside it
    (nor reach its abstract sockets): not the template, nor the template's keeper (outside
    the template's domain too), which kills all below itself when the template ends
    (``agents.isolation.keeper``). Nothing where the kernel
    cannot scope signals (before ABI 6) or the template is not confined."""
    libc = ctypes.CDLL(None, use_errno=True)
    if abi() < 6 or libc.prctl(_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1:
        return
    attr = _Ruleset(0, 0, _SCOPE_ALL)
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(24), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


_CAPSET = {"x86_64": 126, "aarch64": 91}
_SOCKET = {"x86_64": (41, 425), "aarch64": (198, 425)}  # socket, io_uring_setup
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}


def _drop_capabilities(libc) -> None:
    """Give up every capability (a run as root would hand them to the agent: raw sockets,
    device nodes, files of other owners): the bounding set, then the process's own sets."""
    for cap in range(64):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP: stops at the last one
            break
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: none (two words each)
    if libc.syscall(_CAPSET[platform.machine()], header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _no_sockets(libc) -> None:
    """A seccomp filter: ``socket`` (every family: TCP, UDP, MPTCP, raw, Unix sockets named by
    a path, which Landlock does not cover) and ``io_uring_setup`` (which could open sockets
    around it) fail with EPERM; a system call of another architecture ends the process. The
    sockets the child was given (its control socket) still work."""
    machine = platform.machine()
    denied = _SOCKET[machine]
    load, jump, ret = 0x20, 0x15, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_RET|K
    allow, kill, refuse = 0x7FFF0000, 0x80000000, 0x00050000 | 1  # ..., ERRNO(EPERM)
    code = [(load, 0, 0, 4), (jump, 1, 0, _AUDIT_ARCH[machine]), (ret, 0, 0, kill)]
    code += [(load, 0, 0, 0)]
    if machine == "x86_64":  # x32 system calls (bit 30) name the same calls otherwise
        code += [(0x35, len(denied) + 1, 0, 0x40000000)]  # BPF_JMP|JGE|K: to refuse
    for k, nr in enumerate(denied):
        code += [(jump, len(denied) - k, 0, nr)]  # to refuse
    code += [(ret, 0, 0, allow), (ret, 0, 0, refuse)]

    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8)]
        _fields_ += [("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(Filter))]

    filters = (Filter * len(code))(*[Filter(*op) for op in code])
    program = Program(len(code), filters)
    if libc.prctl(22, 2, ctypes.byref(program), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
        raise OSError(ctypes.get_errno(), "seccomp filter failed")


def _allow(libc, ruleset: int, path: str, access: int) -> None:
    """Add a rule for ``path`` (skipped if it does not exist); a file takes file rights only."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            access &= _FILE_ONLY
        rule = _PathBeneath(access, fd)
        if libc.syscall(_ADD_RULE, ruleset, _PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)
