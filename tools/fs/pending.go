package fs

const (
	defaultMaxMatches  = 100
	searchLineChars    = 500
	autoContext        = 2
	autoContextMatches = 3
	defaultMaxFiles    = 200
)
