package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/weirhq/weir/sparkerr"
)

// TestRESTCatalogConfiguration: a catalog name routes to a REST catalog only when configured
// as Iceberg's SparkCatalog of type rest (server conf or session conf); other plugins and
// types are refused with why, an unconfigured name is still CATALOG_NOT_FOUND, a REST catalog
// without a uri is refused before any request, and a bad server conf value stops the server.
func TestRESTCatalogConfiguration(t *testing.T) {
	ctx := context.Background()
	s := NewSession(WithConf([2]string{"spark.sql.catalog.lake", icebergSparkCatalog}, [2]string{"spark.sql.catalog.lake.type", "rest"}))
	defer s.Close()
	if _, _, err := s.restCatalog(ctx, "lake"); err == nil || !strings.Contains(err.Error(), "spark.sql.catalog.lake.uri is not set") {
		t.Fatalf("a REST catalog without a uri: %v", err)
	}
	if _, ok, err := s.restCatalog(ctx, "spark_catalog"); ok || err != nil {
		t.Fatalf("spark_catalog is the metastore: %v %v", ok, err)
	}
	must(t, s.conf.Set("spark.sql.catalog.h", icebergSparkCatalog))
	must(t, s.conf.Set("spark.sql.catalog.h.type", "hadoop"))
	if _, _, err := s.restCatalog(ctx, "h"); err == nil || !strings.Contains(err.Error(), "type rest") {
		t.Fatalf("a hadoop-type catalog: %v", err)
	}
	must(t, s.conf.Set("spark.sql.catalog.o", "com.example.Other"))
	if _, _, err := s.restCatalog(ctx, "o"); err == nil || !strings.Contains(err.Error(), "com.example.Other") {
		t.Fatalf("another plugin: %v", err)
	}
	_, err := runSQL(ctx, s, "CREATE TABLE nowhere.db.t (a INT)")
	if se, ok := sparkerr.As(err); !ok || se.Class != "CATALOG_NOT_FOUND" {
		t.Fatalf("an unconfigured catalog: %v", err)
	}
	if err := CheckServerConf([][2]string{{"spark.sql.ansi.enabled", "maybe"}}); err == nil {
		t.Fatal("an invalid --conf value was accepted")
	}
	must(t, CheckServerConf([][2]string{{"spark.sql.catalog.lake.uri", "http://127.0.0.1:1"}}))
}
