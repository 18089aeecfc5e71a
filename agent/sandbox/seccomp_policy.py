"""The system calls the sandbox worker may not make, compiled to a seccomp program by libseccomp.

The parent compiles the program (libseccomp, through `pyseccomp`, knows each
architecture's numbers and writes the architecture check) and hands the bytes
to the worker, which installs them on itself (`agent.sandbox.kernel`). The
filter allows by default and refuses with EPERM what node code never needs and
an escape always does: running programs, reading or writing other processes,
signals, new sockets, new processes or threads, namespaces and mounts, and the
kernel interfaces with a long record of privilege escalations (bpf, io_uring,
userfaultfd, perf events, keyrings). It also refuses what would spend memory or
quotas outside the worker's budgets (`agent.sandbox.budgets`): shared memory
that `RLIMIT_AS` does not count once unmapped (memfd, SysV shm, POSIX message
queues), and the inotify instances and POSIX timers charged to the user's
own quotas in every ancestor user namespace.
"""

from __future__ import annotations

import errno
import functools
import tempfile

DENIED = (
    # running another program
    "execve", "execveat",
    # reaching into another process
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_open", "pidfd_getfd",
    "kcmp",
    # signals: a worker signals nobody, itself included
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal",
    # the network and local sockets
    "socket", "socketpair",
    # new processes and threads
    "fork", "vfork", "clone", "clone3",
    # namespaces and mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # kernel interfaces an escape uses
    "bpf", "keyctl", "add_key", "request_key", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "userfaultfd", "perf_event_open", "name_to_handle_at", "open_by_handle_at", "fanotify_init",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
    "swapoff", "acct", "quotactl", "syslog", "personality", "iopl", "ioperm", "uselib", "vhangup",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    # memory outside RLIMIT_AS and any limit: memfd, SysV shared memory, POSIX message queues
    # (and SysV message queues, which hold kernel memory)
    "memfd_create", "memfd_secret", "shmget", "shmat", "shmctl", "mq_open", "mq_timedsend", "mq_notify",
    "msgget", "msgsnd",
    # the user's own quotas, shared with their editors and services: inotify instances, POSIX timers
    # (each holds a queued-signal slot)
    "inotify_init", "inotify_init1", "inotify_add_watch", "timer_create",
)


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its Python binding) is missing: the filter cannot be compiled here."""


@functools.lru_cache(maxsize=1)
def compiled_filter() -> bytes:
    """The worker's seccomp program as raw BPF (cached: the same for every worker of this parent)."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # the binding, or libseccomp.so.2 behind it
        raise SeccompUnavailable(f"libseccomp is not available ({exc}): apt-get install libseccomp2") from None
    policy = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED:
        try:
            policy.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (ValueError, RuntimeError, OSError):
            continue  # a call this architecture or this libseccomp does not know: nothing to refuse
    with tempfile.TemporaryFile() as out:
        policy.export_bpf(out)
        out.seek(0)
        return out.read()
