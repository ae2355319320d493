// FullTextCodec.swift — the binary form of a full-text index definition, shared by the log
// (MutationCodec kinds 40 and 41) and the snapshot (section kind 9): entity, label or type id,
// keys, name, language, stop words.

extension ByteWriter {
    mutating func fullTextDescriptor(_ d: FullTextIndexDescriptor) {
        u8(d.entity.rawValue)
        id(d.schemaID)
        varint(UInt64(d.keys.count))
        for key in d.keys { id(key.rawValue) }
        string(d.name)
        string(d.language)
        varint(UInt64(d.stopwords.count))
        for word in d.stopwords { string(word) }
    }
}

extension ByteReader {
    mutating func fullTextEntity() throws(CodecError) -> FullTextEntity {
        let raw = try u8()
        guard let entity = FullTextEntity(rawValue: raw) else { throw CodecError(message: "bad full-text entity \(raw)") }
        return entity
    }

    mutating func fullTextDescriptor() throws(CodecError) -> FullTextIndexDescriptor {
        let entity = try fullTextEntity()
        let schemaID = try id()
        let n = try count()
        var keys: [PropertyKeyID] = []
        for _ in 0..<n { keys.append(PropertyKeyID(rawValue: try id())) }
        let name = try string()
        let language = try string()
        let s = try count()
        var stopwords: [String] = []
        for _ in 0..<s { stopwords.append(try string()) }
        return FullTextIndexDescriptor(entity: entity, schemaID: schemaID, keys: keys, name: name,
                                       language: language, stopwords: stopwords)
    }
}
