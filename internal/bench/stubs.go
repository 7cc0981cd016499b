package bench

import "context"

func checkpointRows(context.Context, Options) []Row { return nil }
func tokenRows(context.Context, Options) []Row      { return nil }
func resumeRows(context.Context, Options) []Row     { return nil }
func memoryRows(context.Context, Options) []Row     { return nil }
