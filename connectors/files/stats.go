package files

import (
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/weirhq/weir/fileaccess"
)

// maxStatsFiles bounds the Parquet footers ParquetRowCount opens for one read.
const maxStatsFiles = 10_000

// ParquetRowCount is the number of rows of a Parquet read of paths, summed from the files'
// footers (no data is read); ok is false when a path is not readable under files, a file is
// not Parquet or there are more than maxStatsFiles files. The optimizer's join order uses it.
func ParquetRowCount(files *fileaccess.Policy, paths []string) (rows int64, ok bool) {
	list, err := listPaths(files, paths)
	if err != nil || len(list) > maxStatsFiles {
		return 0, false
	}
	for _, f := range list {
		pf, err := file.OpenParquetFile(f.Path, false)
		if err != nil {
			return 0, false
		}
		rows += pf.NumRows()
		pf.Close()
	}
	return rows, true
}
