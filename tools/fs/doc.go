// Package fs provides wield's file tools: read_file, read_many_files,
// write_file, replace, list_directory, glob and search_file_content.
//
//	reg, err := tool.NewRegistry(fs.Tools(fs.Config{})...)
//
// Each tool is built by its own constructor ([NewRead], [NewReadMany],
// [NewList], [NewGlob], [NewSearch], [NewReplace], [NewWrite]); [Tools]
// returns them all in the order a model should see them. A zero [Config]
// works; its fields bound output and parallelism. The read-only tools are
// parallel-safe; write_file and replace are marked destructive.
//
// Results carry structured Data next to the text the model reads:
// [ReadData], [FileData] (an image's type and size; its picture is in the result's Images),
// [ReadManyData], [ListData], [GlobData], [SearchData], [WriteData] and
// [ReplaceData].
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
// matched with a port of git's own wildmatch (internal/fstree/ignore, under
// the walker the file tools share with package retrieval), since
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
// # Writing
//
// write_file and replace write a temporary file next to the target, sync
// it and rename it over the target, so a file holds its old or its new
// content, never a mix. They keep an existing file's line endings,
// byte-order mark and permissions, follow links that stay inside the
// workspace, and refuse .git, .ssh and .wield, .env files, private keys and
// credential files, whatever link leads there.
//
// # Speed
//
// Directory trees are walked by a pool of [Config.Workers] goroutines that
// share a depth-first stack of directories and batches of files. On Linux
// the walk reads directories with getdents and opens files with openat on
// descriptors that descend from the os.Root (see dir_linux.go); elsewhere
// it uses os.Root itself. search_file_content skips files with a NUL byte
// in their first 8 KiB as binary and rarely runs the regexp: a literal
// that every match contains is found with bytes.Index (SIMD) or, ignoring
// case, by scanning for both cases of its rarest byte, and only the lines
// holding it are checked. Patterns without such a literal fall back to
// Go's regexp over the whole text, which is several times slower than
// ripgrep. bench/fs.sh compares the tools with ripgrep.
package fs
