package words

import (
	"os"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }
