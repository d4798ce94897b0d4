/*
 * probe.c - host check used by Scripts/bluez-guest before it builds or boots
 * the User-Mode-Linux guest.
 *
 * It forks a child that asks to be traced and stops itself, then does what
 * UML needs from ptrace: attach, PTRACE_SYSEMU to the child's next system
 * call, and read the child's extended FPU state with PTRACE_GETREGSET
 * (NT_X86_XSTATE).  The host kernel shortens the buffer length to the exact
 * size of its XSAVE area; UML must use exactly that size, because the host
 * refuses a PTRACE_SETREGSET of any other length (EFAULT).
 *
 * Output on success (exit 0), one line:   xstate <bytes>
 * Output on failure (exit 1), one line:   <reason>
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_SYSEMU
#define PTRACE_SYSEMU 31
#endif
#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

static pid_t child = -1;

static int fail(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return 1;
}

int main(void)
{
	static unsigned char area[65536];
	struct iovec iov = { area, sizeof(area) };
	int status;

	child = fork();
	if (child < 0)
		return fail("fork failed");
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(2);
		raise(SIGSTOP);
		getpid();
		_exit(0);
	}

	if (waitpid(child, &status, 0) < 0)
		return fail("waitpid failed");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
		errno = EPERM;
		child = -1;
		return fail("ptrace(PTRACE_TRACEME) refused");
	}
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
		errno = EINVAL;
		return fail("traced child did not stop");
	}

	if (ptrace(PTRACE_SYSEMU, child, NULL, NULL) < 0)
		return fail("ptrace(PTRACE_SYSEMU) refused");
	if (waitpid(child, &status, 0) < 0)
		return fail("waitpid after PTRACE_SYSEMU failed");
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
		errno = EINVAL;
		return fail("PTRACE_SYSEMU did not stop the child at a system call");
	}

	if (ptrace(PTRACE_GETREGSET, child, (void *)NT_X86_XSTATE, &iov) < 0)
		return fail("ptrace(PTRACE_GETREGSET, NT_X86_XSTATE) failed");

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	printf("xstate %zu\n", iov.iov_len);
	return 0;
}
