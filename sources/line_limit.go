package sources

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// MaxLineBytesConf bounds the lines the text, JSON and CSV readers (batch and streaming) hold.
//
// Spark reads these formats line by line through Hadoop's LineRecordReader, whose bound
// (mapreduce.input.linerecordreader.line.maxlength) is unlimited by default, and CSV fields
// through univocity (maxCharsPerColumn, also unlimited by default): a file without line breaks
// is read into memory whole. Weir bounds a line by default: a longer line fails the read with
// FAILED_READ_FILE naming the file and this conf, after buffering at most the bound. 64 MiB is
// far above any line a text, JSON-lines or CSV file holds in practice (one record per line),
// and a value of that size is still one Arrow string, yet a reading task cannot take more.
const MaxLineBytesConf = "spark.weir.files.maxLineBytes"

// DefaultMaxLineBytes is MaxLineBytesConf's default.
const DefaultMaxLineBytes = 64 << 20

// MaxLineBytesFromConf reads MaxLineBytesConf from a session conf lookup (nil: the default).
func MaxLineBytesFromConf(conf func(string) (string, bool)) (int64, error) {
	if conf == nil {
		return DefaultMaxLineBytes, nil
	}
	v, ok := conf(MaxLineBytesConf)
	if !ok || strings.TrimSpace(v) == "" {
		return DefaultMaxLineBytes, nil
	}
	n, err := ParseByteSize(MaxLineBytesConf, v)
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, sparkerr.IllegalArgument("%s must be positive, but was %s", MaxLineBytesConf, v)
	}
	return n, nil
}
