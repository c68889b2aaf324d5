/// What a plugin written in another package imports to use the sample contracts, as
/// `.product(name: "SampleContracts", package: ...)` of this package: like `PluginAPIExport`, it only
/// re-exports the nested dynamic product, so the plugin links the one `libSampleContracts.so` the
/// sample plugins link and writes `import SampleContracts` as they do.
@_exported import SampleContracts
