package sources

// ReadPaths returns the paths a read names: load()'s paths, else the "path" option.
func ReadPaths(options map[string]string, paths []string) []string {
	if len(paths) > 0 {
		return paths
	}
	if p := NormalizeOptions(options)["path"]; p != "" {
		return []string{p}
	}
	return nil
}
