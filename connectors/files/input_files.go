package files

import (
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sources"
)

// InputFiles are the URIs of the data files a batch read of paths (and a "path" option) lists
// now, as Spark's DataFrame.inputFiles gives them (file:///…), each path checked for reading by
// files; a missing path is Spark's PATH_NOT_FOUND, as the read would be.
func InputFiles(files *fileaccess.Policy, options map[string]string, paths []string) ([]string, error) {
	paths = sources.ReadPaths(sources.NormalizeOptions(options), paths)
	found, err := listPaths(files, paths)
	if err != nil {
		return nil, err
	}
	uris := make([]string, len(found))
	for i, f := range found {
		uris[i] = FileURI(f.Path)
	}
	return uris, nil
}
