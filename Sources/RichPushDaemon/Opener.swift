import CLinux
import Glibc

/// Opens a payload (the full image, the text, the link) with the desktop's opener, `xdg-open` by default, as a
/// child process that the daemon reaps and never waits for.
final class Opener {
    let command: [String]
    private var children: [pid_t] = []

    init(command: [String]) {
        self.command = command
    }

    /// Starts `command target`; returns a sentence describing the failure, if it could not start.
    func open(_ target: String) -> String? {
        let arguments = command + [target]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The daemon blocks SIGTERM (it reads it from a signalfd) and ignores SIGPIPE; the opener gets the defaults.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArguments = arguments.map { strdup($0) }
        cArguments.append(nil)
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], nil, &attributes, cArguments, environ)
        guard result == 0 else { return "\(arguments[0]) cannot start: \(String(cString: strerror(result)))" }
        children.append(pid)
        return nil
    }

    /// Collects the exit status of openers that ended, so none stays a zombie.
    func reap() {
        children.removeAll { pid in
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) != 0
        }
    }
}
