// Package plainfile opens and reads the small files agentlock keeps
// (settings, records, the registry, a file whose digest is taken) the way
// a one-shot process should: an open, a status, reads and a close, with no
// descriptor handed to the Go runtime's poller.
//
// os.Open registers every file it opens with the poller, which a regular
// file refuses: the first such open in a process creates the poller (an
// epoll instance and an event descriptor), and each one costs a failed
// registration and four fcntl calls, about ten system calls a lock call
// spent for nothing (issue 33). A file opened here is a blocking
// descriptor wrapped by os.NewFile, which the poller never sees; reading
// it blocks its thread, as the reads of a regular file do anyway.
package plainfile

import (
	"io"
)

// ReadFile reads the whole file at path, as os.ReadFile does, through
// Open: its errors are os.ReadFile's (a *fs.PathError, errors.Is(err,
// fs.ErrNotExist) for a missing file).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if info, err := f.Stat(); err == nil && info.Size() > 0 && info.Size() < 1<<30 {
		// One byte more, so that the read that finds the end needs no
		// bigger buffer.
		size = int(info.Size()) + 1
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
