// Package sandbox runs a command isolated from the machine it runs on: a
// read-only view of the system with the user's credentials hidden (see
// "What is hidden"), write access only to a scratch directory (and the
// workspace, when asked), no network unless allowed, a PID namespace
// where the platform offers one, and limits on CPU time, memory, file
// size, output and wall-clock time.
//
//	sb, err := sandbox.New(sandbox.Config{Helper: []string{"/proc/self/exe", sandbox.HelperArg}})
//	if err != nil {
//		return err // *UnavailableError: the minimum isolation is not to be had here
//	}
//	res, err := sb.Run(ctx, &sandbox.Command{Args: []string{"python3", "-c", code}})
//
// # Mechanisms
//
// [Probe] finds what the machine offers, strongest first:
//
//   - bubblewrap (the bwrap program), which builds the sandbox from Linux
//     namespaces: the whole file system bound read-only, the hidden paths
//     covered, the scratch directory bound writable over it, fresh /dev
//     and /proc, new PID, IPC, UTS and (unless the network is allowed)
//     network namespaces, a user namespace where the kernel lets bwrap
//     make one, and every capability dropped. When the command exits,
//     everything it started dies with the PID namespace.
//   - Landlock, the Linux security module that lets an unprivileged
//     process restrict itself (github.com/landlock-lsm/go-landlock):
//     reading and executing everywhere but the hidden paths, writing only
//     beneath the writable directories and /dev/null; with ABI 4 and later
//     TCP connect and bind denied, and with ABI 6 and later no signals to
//     processes outside the sandbox. Used where bwrap is missing or cannot
//     create namespaces.
//   - none: resource limits only. Used only when [Config.Minimum] is
//     [LevelLimits], so a command never runs unconfined by accident.
//
// [New] refuses with an [*UnavailableError], naming what is missing and
// how to get it, when the strongest mechanism does not reach
// [Config.Minimum].
//
// # The helper
//
// Limits and Landlock must be applied inside the new process before the
// command starts, which Go's os/exec cannot do. So each command starts as
// a helper, the calling program re-executed ([Config.Helper]), which
// applies them and then executes bwrap or the command in its place. A
// program that uses this package calls [Enter] first thing when its
// arguments say so:
//
//	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
//		os.Exit(sandbox.Enter(os.Args[2:]))
//	}
//
// # Limits
//
// CPU time, memory and file size are POSIX resource limits, which bound
// each process of the command, not their sum: CPU time by SIGXCPU and
// then SIGKILL (with a resolution of one second, and counting the
// helper's own start under Landlock), memory as the data segment
// (RLIMIT_DATA: the private writable mappings, so that runtimes which
// reserve large address ranges, as Go and V8 do, still start), file size
// as the largest file the command may write. Output and wall-clock time
// are bounded by [Sandbox.Run]: past [Command.MaxOutput] bytes on either
// stream the output is cut and the command stopped; past
// [Command.Timeout] it is killed with everything it started.
//
// # What is hidden
//
// The command cannot read where credentials are kept. By default that is
// [CredentialPaths] for the caller's home directory ($HOME, and the one
// the password database names when that differs) and configuration
// directory ($XDG_CONFIG_HOME, else ~/.config): SSH and GnuPG keys, the
// cloud, container and package-registry clients' logins, git's and the
// forges' tokens, password stores and keyrings, browser profiles, the
// database clients' password files, other coding agents' logins and
// wield's own configuration directory with its API keys. To those are
// added $WIELD_HOME, where wield keeps sessions outside the workspace;
// the files and directories named by the caller's AWS_SHARED_CREDENTIALS_FILE,
// AWS_CONFIG_FILE, AZURE_CONFIG_DIR, CLOUDSDK_CONFIG,
// GOOGLE_APPLICATION_CREDENTIALS, DOCKER_CONFIG, GNUPGHOME, KUBECONFIG,
// CARGO_HOME, TF_CLI_CONFIG_FILE, PASSWORD_STORE_DIR, GH_CONFIG_DIR,
// NETRC, NPM_CONFIG_USERCONFIG and PGPASSFILE; and the sockets through
// which agents act with the user's keys: $SSH_AUTH_SOCK and the runtime
// directory ($XDG_RUNTIME_DIR, and /run/user/UID: the session bus that
// reaches the keyring, GnuPG's agent, rootless container engines).
// [Config.Hide] adds paths and [Config.Show] keeps some visible; [Hidden]
// lists what is hidden.
//
// Each path is looked up when a command starts: one that does not exist
// then is not hidden, and a symbolic link hides its target. Only
// directories and regular files can be hidden (bubblewrap before 0.9
// cannot mount over anything else): a socket, named pipe or device is
// hidden with its directory when that holds nothing else, as ssh-agent's
// does, and is not hidden otherwise. A hidden path
// that is, or lies inside, the command's scratch directory or workspace
// is not hidden from it: the command may write there, and its own files
// come first. A writable directory inside a hidden one stays visible and
// writable, and a [Config.Show] path inside one stays visible, read-only;
// the rest of the hidden directory stays hidden.
//
// Under bubblewrap a hidden directory is empty and read-only, and a
// hidden file cannot be opened (/dev/null is bound over it, on a mount
// without devices). Under Landlock neither can be opened ("permission
// denied"). Landlock grants access to whole hierarchies and cannot take
// it away beneath them, so the helper grants read access to each entry of
// every directory on the way from / to a hidden path instead of to the
// directory, save the hidden path itself: under Landlock those
// directories (/, /home, the home directory, ~/.config and the like)
// cannot be listed, though what is in them can be read by name. The
// walk and its rules cost the helper 10 to 20 µs per entry granted on a
// loaded two-core machine. A directory hidden for its sockets is left
// alone under Landlock, which does not restrict connecting to a socket
// before ABI 9 and from ABI 9 denies it for every socket outside the
// sandbox. A [NoIsolation] sandbox hides nothing.
//
// # Network through a proxy
//
// With [Config.Proxy], a command that does not have [Command.Network]
// reaches the network through an HTTP proxy, and only through it.
// Package sandbox/egress serves one that connects to the hosts of an
// allow list ("api.example.com", "*.github.com") and only to public
// addresses, resolving names itself, and answers any other request with
// a 403 whose reason phrase and body say why. The command's environment
// names the proxy, in place of the caller's values: HTTP_PROXY,
// HTTPS_PROXY and ALL_PROXY, and their lower-case forms, are
// http://127.0.0.1:PORT; NO_PROXY and no_proxy are empty. curl, wget,
// Python, Go, git, pip and npm read them.
//
// Under bubblewrap the network namespace keeps only its loopback
// interface. The helper starts itself again inside the sandbox; that
// inner helper listens on 127.0.0.1:PORT of the namespace, forwards each
// connection to the proxy's Unix socket (whose directory is shown even
// inside a hidden one), and runs the command as its child through one
// more helper, which sets the limits; it passes signals on and exits
// with the command's status. So the proxy is all there is to reach: a
// program that ignores the proxy variables, or speaks UDP, gets no
// network, and there is no DNS inside the sandbox.
//
// Under Landlock (ABI 4 and later) TCP connect is allowed to the proxy's
// port and nothing else. Landlock restricts ports, not addresses: the
// command may connect to that port number of any host, so a server
// elsewhere listening on it is reachable. UDP, DNS included, is open
// before ABI 10, as below. Without isolation, and under Landlock before
// ABI 4, the variables are set and nothing is enforced.
//
// The proxy decides where connections go, not what they carry: an
// allowed host receives whatever the command sends it.
//
// # What is not guaranteed
//
// Only the paths above are hidden: the command can read every other file
// the calling user can, secrets in the workspace (a .env file), in a
// project's configuration or in an unusual place included; pass a
// minimal environment (the default) and keep secrets out of readable
// files. A hidden file stays readable through another name for it (a
// hard link, a bind mount, a copy). The sockets of daemons are not
// hidden under bubblewrap: a command reaches Docker's /run/docker.sock,
// which makes it root, if the user may. Under Landlock a hidden path's
// name, size and times can still be learnt (stat is not restricted), and
// before ABI 9 every socket can still be connected to, an agent's
// included.
//
// Under Landlock alone, the mode, owner and times of the caller's files
// outside the writable directories can still be changed (Landlock does
// not restrict chmod, chown or utime), the process list of the machine stays visible,
// UDP is not cut off before Landlock ABI 10, and a process that leaves
// the command's process group and drops the WIELD_SANDBOX variable from
// its environment can outlive the run. Nothing bounds the number of
// processes: a fork bomb runs until its wall-clock limit. Resource
// limits do not bound memory shared between processes. A kernel bug
// defeats all of it; the sandbox reduces what a mistaken or hostile
// command can do, it does not make running one safe.
//
// Every process of a command dies with the program that started it: the
// helper has SIGKILL as its parent-death signal, which bwrap's sandbox
// inherits through --die-with-parent and the command through the exec.
package sandbox
