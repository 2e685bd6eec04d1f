package sinks

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// WithPath is a writer's options once save(path) / start(path) gave path (method names the
// call): Spark refuses a "path" option next to the parameter (_LEGACY_ERROR_TEMP_1188) unless
// spark.sql.legacy.pathOptionBehavior.enabled (legacy), under which the parameter replaces it.
// With no path the options are returned as they are; otherwise a new map holds them with "path".
func WithPath(method, path string, options map[string]string, legacy bool) (map[string]string, error) {
	if path == "" {
		return options, nil
	}
	out := make(map[string]string, len(options)+1)
	for k, v := range options {
		if strings.EqualFold(k, "path") {
			if !legacy {
				return nil, sparkerr.Newf(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1188", "",
					"There is a 'path' option set and %s() is called with a path parameter. Either remove the path "+
						"option, or call %s() without the parameter. To ignore this check, set "+
						"'spark.sql.legacy.pathOptionBehavior.enabled' to 'true'.", method, method).WithParams("method", method)
			}
			continue
		}
		out[k] = v
	}
	out["path"] = path
	return out, nil
}
