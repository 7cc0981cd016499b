package views

// PipeView is pipeView, for the test of the pages that render it (an
// external test: pages imports views).
var PipeView = pipeView
