// The candidate worker's sandbox: no network, and writes only to its scratch
// folder (and the device files a GPU needs). Applied by the worker to itself:
// the network before anything else, the filesystem after the device and the
// exchange are open and before the candidate's library is loaded, so even
// its static initializers run inside. CUDAL1_SANDBOX=0 turns both off.
#pragma once

#include <string>
#include <vector>

namespace cudal1 {

/// Moves the process into a fresh network namespace (only a loopback device,
/// down). Returns "" on success, else why not (needs root or user namespaces).
std::string isolate_network();

/// Restricts the filesystem with Landlock: reads and writes in `own_dir`
/// (the worker's scratch folder); reads of the system's programs, libraries
/// and configuration (/usr, /lib*, /bin, /sbin, /etc, /opt), /proc and /sys;
/// /dev/null, zero, random, urandom and, for the CUDA backend, /dev/nvidia*.
/// Binds the calling thread and threads it starts later, not threads that
/// exist already. Returns "" on success, else why not.
/// `extra_reads`: more folders to read (a Python's own tree where it lives
/// outside those, for the Python candidate worker).
/// `system_views`: also read /proc and /sys (false for a compiler: it needs
/// neither, and /proc shows every process's command line).
std::string restrict_files(const std::string& own_dir, bool allow_gpu_devices,
                           const std::vector<std::string>& extra_reads = {}, bool system_views = true);

/// cudal1-worker --exec-sandboxed DIR [--sandbox-uid UID] [--read PATH]... --
/// PROGRAM ARGS...: runs a candidate's compiler with what the candidate's own
/// process gets (no network; reads of the system's files and DIR, writes in
/// DIR only; no /proc; an unprivileged user; an environment of PATH,
/// LD_LIBRARY_PATH, CUDA_HOME, CUDA_PATH, LANG, CC, CXX and nvcc's own
/// NVCC_* variables, with HOME and TMPDIR in DIR). A compiler reads whatever a source names (#include "/any/file",
/// .incbin) and quotes it in its diagnostics. Writes how each layer went to
/// DIR/sandbox.txt, then execs PROGRAM; a layer that cannot be had is said
/// there, not fatal (as for the worker). Returns only on a usage error or a
/// failed exec (the exit status).
int exec_sandboxed(int argc, char** argv);

/// Forbids, for every thread of the process: starting processes (fork,
/// vfork, execve, execveat, clone without CLONE_THREAD; clone3 fails with
/// ENOSYS so the C library falls back to clone, whose flags a seccomp filter
/// can read), which binds root too; and setting up work to run after a call
/// returns: interval and POSIX timers, signal-driven I/O (fcntl F_SETOWN,
/// F_SETSIG, F_SETOWN_EX, F_SETFL with O_ASYNC, leases, directory
/// notifications; ioctl FIOASYNC, FIOSETOWN, SIOCSPGRP), io_uring,
/// perf events and message-queue notifications; and leaving the sandbox's
/// bounds: new namespaces (unshare, clone's CLONE_NEW* flags), joining
/// others (setns), and any system call of another ABI (i386, x32), whose
/// numbers the filter's do not cover; and signals to any other process, or
/// job control of its own (SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU to
/// itself: the judge's stops are the judge's to lift). Each attempt fails with EPERM and is
/// recorded for take_attempts(). Returns "" on success, else why not.
/// `bound_memory` (the CPU backend): memfd_create, shmget and memfd_secret
/// refused too (EPERM), whose pages no address-space limit counts.
std::string forbid_processes(bool bound_memory);

struct forbidden_attempts {
  std::vector<std::string> processes;      // calls that start a process
  std::vector<std::string> deferred_work;  // calls that set up work for later
  std::vector<std::string> escapes;        // calls that would leave the sandbox's bounds
};
/// The forbidden calls attempted since the last call, and forgets them.
forbidden_attempts take_attempts();

/// What is set up to deliver a signal later, seen after a call: an armed
/// interval timer, O_ASYNC or a signal owner on descriptors 0-4. Empty if none.
std::string deferred_work_state();

/// Becomes `uid` (and gid `uid`, no supplementary groups): no capabilities
/// left. Returns "" on success, else why not (the worker is not root).
std::string drop_privileges(unsigned uid);

bool sandbox_enabled();

}  // namespace cudal1
