// Package fs provides wield's file tools: read_file, read_many_files,
// write_file, replace, list_directory, glob and search_file_content.
//
//	reg, err := tool.NewRegistry(fs.Tools(fs.Config{})...)
//
// Each tool is built by its own constructor ([NewRead], [NewList], ...);
// [Tools] returns them all in the order a model should see them. A zero
// [Config] works; its fields bound output and parallelism.
//
// # The workspace
//
// Every path goes through the call's [tool.Call.Root], an [os.Root]. A path
// argument is relative to the workspace root or absolute inside it. Paths
// are cleaned lexically first, so "a/../b" is "b"; ".." that climbs out,
// absolute paths elsewhere, and symbolic links that lead out are refused
// with "PATH is outside the workspace". Links that stay inside are
// followed, including links with absolute targets inside the root, which
// os.Root alone refuses. As for os.Root, this does not stop a path from
// crossing into another file system mounted inside the workspace, or from
// reading device files found there; the tools do refuse to read anything
// but regular files.
//
// # Ignore rules
//
// glob, search_file_content, read_many_files and list_directory show the
// files that `git ls-files -co --exclude-standard` lists: nested
// .gitignore files, .git/info/exclude and [Config.ExcludePatterns], with
// negation, directory patterns and git's rule that nothing inside an
// excluded directory comes back, except files git tracks. Trees that are
// not repositories still honour their .gitignore files. The patterns are
// matched with a port of git's own wildmatch (internal/ignore), since
// go-git's matcher differs from git on "dir/**", "[!x]" and on name
// patterns inside re-included directories.
//
// A .wieldignore file, with the same syntax, is applied before the
// .gitignore files: it can hide more, and its "!pattern" lines show what
// git ignores, even inside an ignored directory ("!build/report.txt").
// .wieldignore files inside a directory that is ignored are not read, as
// git does not read .gitignore files there. wield's state directory
// (.wield/ at the root) is hidden unless a .wieldignore re-includes it,
// and .git is never shown. Every tool counts what the rules hid.
//
// Ignore rules decide what the tools find, never what they may read: an
// explicit path (read_file, or the path of a search) is honoured even when
// the rules hide it.
//
// Limits of the rules: .gitignore files above the workspace root and
// git's global excludes file are not read (a host may pass the latter's
// lines in [Config.ExcludePatterns]); nested repositories are walked as
// directories of the outer one; file names are compared case-sensitively.
//
// # Output
//
// Every result is bounded by [Config.OutputBudget] and says what it left
// out and how to get it: the offset that continues a read, the number of
// matches or files not shown. Failures say what to change.
//
// # Speed
//
// Directory trees are walked by a pool of [Config.Workers] goroutines that
// share a depth-first stack of directories and batches of files; each
// directory is opened once as an os.Root of its own, so files are opened
// with a single openat.
package fs
