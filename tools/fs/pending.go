package fs

const (
	defaultMaxFiles = 200
)
