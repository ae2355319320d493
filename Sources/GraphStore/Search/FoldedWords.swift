// FoldedWords.swift — the words of one text, folded, in a single buffer reused from text to
// text: a bulk build reads a million names, and an array allocated (and freed) per word was a
// fifth of its time.

/// Words as letters in one array with their ends. `removeAll` keeps the room for the next text.
struct FoldedWords {
    private(set) var letters: [UInt32] = []
    private(set) var ends: [Int] = []
    /// Letters folded before they are kept as words (a name's word gives its pieces and its
    /// joined form from one folding).
    var scratch: [UInt32] = []

    var count: Int { ends.count }

    mutating func removeAll() {
        letters.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
    }

    /// The letters of word `i`.
    @inline(__always) func range(_ i: Int) -> Range<Int> { (i == 0 ? 0 : ends[i - 1])..<ends[i] }

    /// Ends a word at the letters appended since the last one (none: no word).
    @inline(__always) mutating func endWord() {
        if letters.count > (ends.last ?? 0) { ends.append(letters.count) }
    }

    /// Appends one letter to the word being made.
    @inline(__always) mutating func append(_ letter: UInt32) { letters.append(letter) }

    /// Keeps `scratch[from...]` as a word unless it is empty or already one.
    mutating func keepDistinct(scratchFrom start: Int) {
        let length = scratch.count - start
        guard length > 0 else { return }
        for i in ends.indices {
            let r = range(i)
            guard r.count == length else { continue }
            var equal = true
            for j in 0..<length where letters[r.lowerBound + j] != scratch[start + j] { equal = false; break }
            if equal { return }
        }
        for j in start..<scratch.count { letters.append(scratch[j]) }
        ends.append(letters.count)
    }

    /// Calls `body` with each word's letters (valid only during the call).
    func forEach(_ body: (UnsafeBufferPointer<UInt32>) -> Void) {
        letters.withUnsafeBufferPointer { b in
            for i in ends.indices { body(UnsafeBufferPointer(rebasing: b[range(i)])) }
        }
    }

    /// The words as arrays.
    var arrays: [[UInt32]] { ends.indices.map { Array(letters[range($0)]) } }
}
