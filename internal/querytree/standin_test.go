package querytree

import (
	"testing"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/database/databasetest"
)

func standIn(tb testing.TB) *database.Conn { return databasetest.StandIn(tb) }
