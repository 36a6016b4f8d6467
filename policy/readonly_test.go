package policy

import (
	"strings"
	"testing"
)

func TestReadOnlyLine(t *testing.T) {
	readOnly := []string{
		"ls -la", "cat a.txt b.txt", "head -n 5 a.txt && tail -n 2 a.txt", "wc -l *.go", "grep -rn TODO .", "rg -n 'fn main' src",
		"egrep 'a|b' x; fgrep -x y z", "find . -name '*.go' -type f", "find . -newer go.mod -print", "git status", "git --no-pager log --oneline -5",
		"git diff HEAD~1 -- a.go", "git show --stat HEAD", "git branch", "git branch --list 'feat/*'", "git branch -av", "git branch --contains HEAD", "git branch --sort -committerdate",
		"git rev-parse --show-toplevel", "git ls-files -m", "git blame -L 1,5 a.go", "git grep -n foo", "git diff --output-indicator-new=+",
		"pwd", "echo $HOME", "stat a.txt", "file a.txt", "tree -L 2", "du -sh .", "df -h", "which go", "sort -u a.txt | uniq -c",
		"sort -k2 -t, a.csv", "uniq a.txt", "cut -d: -f1 /etc/passwd", "tr a-z A-Z < a.txt", "jq .name package.json",
		"go list -m all", "go list -f '{{.Dir}}' ./...", "go doc fmt.Println", "go version", "go env GOPATH", "date +%s",
		"ls > /dev/null 2>&1", "cat a.txt 2>/dev/null | head", "for f in *.go; do wc -l $f; done", "if test -f a; then cat a; fi",
		"[ -d src ] && ls src", "ls $(dirname a/b)", "cat <<EOF\nhi\nEOF", "printf '%s\\n' a b", "(cd src && ls)", "# only a comment", "",
	}
	for _, l := range readOnly {
		if why := readOnlyLine(l); why != "" {
			t.Errorf("readOnlyLine(%q) = %q, want read-only", l, why)
		}
	}
	notReadOnly := []struct{ line, why string }{
		{"rm -rf build", "rm is not a read-only command"},
		{"ls; touch x", "touch is not"},
		{"echo hi > out.txt", `writes to out.txt`},
		{"echo hi >> a.txt", "writes to a.txt"},
		{"{ ls; } > out", "writes to out"},
		{"cat a 1<>a", "writes to a"},
		{"ls > $F", "writes to $F"},
		{"ls 2> /dev/stderr", "writes to /dev/stderr"},
		{"cat a | tee b", "tee is not"},
		{"sed -n 1p a", "sed is not"},
		{"awk '{print}' a", "awk is not"},
		{"xargs cat < list", "xargs is not"},
		{"env ls", "env is not"},
		{"./ls", "./ls is not"},
		{"/bin/rm x", "/bin/rm is not"},
		{"$CMD a", "computed command name"},
		{"PATH=. ls", "assignment PATH=."},
		{"GIT_EXTERNAL_DIFF=x git diff", "assignment GIT_EXTERNAL_DIFF=x"},
		{"X=1 ls", "assignment X=1"},
		{"x=1", "sets x"},
		{"ls $(rm x)", "rm is not"},
		{"f() { rm x; }; f", "rm is not"},
		{"echo $((a))", "as code"},
		{"ls 'unterminated", "does not parse"},
		{"find . -delete", "find's -delete"},
		{"find . -name x -exec rm {} ;", "find's -exec"},
		{"find . -fprint out", "find's -fprint"},
		{"find . $ACTION", "known only when the line runs"},
		{"find . -name *.go", "known only when the line runs"},
		{"sort -o out a", "holds -o"},
		{"sort -uoout a", "holds -o"},
		{"sort a --output=out", "(--output)"},
		{"sort --out=x a", "(--output)"},
		{"sort --compress-program=gzip a", "--compress-program"},
		{"sort -T tmp a", "holds -T"},
		{"uniq a out", "uniq writes its second operand"},
		{"uniq - out", "second operand"},
		{"tree -o out", "holds -o"},
		{"tree -R -H x", "holds -R"},
		{"file -C -m magic", "holds -C"},
		{"date -s 2000-01-01", "holds -s"},
		{"date --se=now", "--set"},
		{"rg --pre ./x foo", "--pre"},
		{"rg --pre=x foo", "--pre"},
		{"printf -v x hi", "as code"},
		{"printf -- x", "static format"},
		{"git commit -m x", "git commit is not"},
		{"git add .", "git add is not"},
		{"git -c core.pager=x log", "git's option -c"},
		{"git -C .. status", "git's option -C"},
		{"git --git-dir=x log", "--git-dir"},
		{"git --exec-path=x status", "--exec-path"},
		{"git --work-tree=x status", "--work-tree"},
		{"git -p log", "git's option -p"},
		{"git diff --output=x", "(--output)"},
		{"git log --out=x", "(--output)"},
		{"git log -p --ext-diff", "--ext-diff"},
		{"git grep -O foo", "holds -O"},
		{"git grep --open-files-in-pager=vi foo", "--open-files-in-pager"},
		{"git branch newb", "creates a branch"},
		{"git branch -v newb", "creates a branch"},
		{"git branch --sort x newb", "creates a branch"},
		{"git branch -d old", "not a listing option"},
		{"git branch -m a b", "not a listing option"},
		{"git branch --set-upstream-to=x", "not a listing option"},
		{"git $SUB", "known only when the line runs"},
		{"git", "without a subcommand"},
		{"go build ./...", "go build is not"},
		{"go test ./...", "go test is not"},
		{"go list -mod=mod all", "-mod=mod is not a read-only flag"},
		{"go list -toolexec x ./...", "-toolexec"},
		{"go list -export ./...", "-export"},
		{"go env -w GOFLAGS=x", "-w"},
		{"go doc -http", "-http"},
		{"go run x.go", "go run is not"},
	}
	for _, tt := range notReadOnly {
		why := readOnlyLine(tt.line)
		if why == "" || !strings.Contains(why, tt.why) {
			t.Errorf("readOnlyLine(%q) = %q, want it refused with %q", tt.line, why, tt.why)
		}
	}
}
