package files

import (
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
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

// ParquetColumnRange is the smallest and largest value of the integer (or date) column name
// over the Parquet files of paths, from their row groups' statistics; ok is false when a file
// has no such statistics for it. The optimizer bounds a column's distinct values by it.
func ParquetColumnRange(files *fileaccess.Policy, paths []string, name string) (lo, hi int64, ok bool) {
	list, err := listPaths(files, paths)
	if err != nil || len(list) == 0 || len(list) > maxStatsFiles {
		return 0, 0, false
	}
	first := true
	for _, f := range list {
		pf, err := file.OpenParquetFile(f.Path, false)
		if err != nil {
			return 0, 0, false
		}
		l, h, found := integerColumnBounds(pf, name)
		pf.Close()
		if !found {
			return 0, 0, false
		}
		if first || l < lo {
			lo = l
		}
		if first || h > hi {
			hi = h
		}
		first = false
	}
	return lo, hi, !first
}

// integerColumnBounds reads one file's min and max of an integer column from its row groups.
func integerColumnBounds(pf *file.Reader, name string) (lo, hi int64, ok bool) {
	md := pf.MetaData()
	col := md.Schema.ColumnIndexByName(name)
	if col < 0 {
		return 0, 0, false
	}
	for g := 0; g < pf.NumRowGroups(); g++ {
		cc, err := md.RowGroup(g).ColumnChunk(col)
		if err != nil {
			return 0, 0, false
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasMinMax() {
			return 0, 0, false
		}
		var l, h int64
		switch s := st.(type) {
		case *metadata.Int32Statistics:
			l, h = int64(s.Min()), int64(s.Max())
		case *metadata.Int64Statistics:
			l, h = s.Min(), s.Max()
		default:
			return 0, 0, false
		}
		if !ok || l < lo {
			lo = l
		}
		if !ok || h > hi {
			hi = h
		}
		ok = true
	}
	return lo, hi, ok
}
