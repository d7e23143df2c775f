package agui

// GrammarEvents is grammarEvents, for the fuzz targets of package
// agui_test.
var GrammarEvents = grammarEvents

// GrammarOptions is grammarOptions, for package agui_test.
var GrammarOptions = grammarOptions
