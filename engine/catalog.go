package engine

import (
	"sort"
	"strings"
	"sync"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
)

// catalog holds a session's temp views: name (lower-cased) → analyzed plan, as Spark keeps them.
type catalog struct {
	mu    sync.RWMutex
	views map[string]logical.Node
	// cached are the DataFrames held by id for Spark Connect clients (cached_relations.go).
	// Checkpoints (checkpoint_relations.go) are there too, as InMemoryTableScans.
	cached map[string]logical.Node
	// persisted are the DataFrames the session persisted, by persist key (persisted_plans.go).
	persisted map[string]*logical.InMemoryRelation
	// cachedNames are the views spark.catalog.cacheTable named (catalog_api.go).
	cachedNames map[string]bool
	// database is the session's current database ("" is default; tables.go).
	database string
}

func newCatalog() *catalog {
	return &catalog{views: map[string]logical.Node{}, cached: map[string]logical.Node{},
		persisted: map[string]*logical.InMemoryRelation{}, cachedNames: map[string]bool{}}
}

// TempView implements analyzer.Catalog.
func (c *catalog) TempView(name string) (logical.Node, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n, ok := c.views[strings.ToLower(name)]
	return n, ok
}

func (c *catalog) create(name string, n logical.Node, replace bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.ToLower(name)
	if _, exists := c.views[key]; exists && !replace {
		return sparkerr.Newf(sparkerr.TempTableAlreadyExists, "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", "42P07",
			"Cannot create the temporary view %s because it already exists.", sparkerr.Quote(name)).
			WithParams("relationName", sparkerr.Quote(name))
	}
	c.views[key] = n
	return nil
}

func (c *catalog) drop(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.ToLower(name)
	_, ok := c.views[key]
	delete(c.views, key)
	return ok
}

func (c *catalog) names() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.views))
	for k := range c.views {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (c *catalog) cacheName(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cachedNames[strings.ToLower(name)] = true
}

func (c *catalog) uncacheName(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.cachedNames, strings.ToLower(name))
}

func (c *catalog) isCachedName(name string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cachedNames[strings.ToLower(name)]
}

func (c *catalog) clearCachedNames() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.cachedNames)
}
