// FuzzEntry.swift — libFuzzer target for the query language front end: the parameter
// header splitter, the lexer and the parser over any text. Each must return or throw a
// QueryError; a crash, a hang or unbounded memory is a bug.

import GraphQuery

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? Lexer.tokenize(text)
    _ = try? Parser.parse(text)
    return 0
}
