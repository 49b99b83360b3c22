import Foundation

/// Walks a list of snapshots or mutable data for `for child in snapshot.children`, the
/// `NSEnumerator` Firebase's `children` properties return.
final class ObjectEnumerator<Element>: NSEnumerator {
    private var remaining: IndexingIterator<[Element]>

    init(_ elements: [Element]) {
        remaining = elements.makeIterator()
    }

    override func nextObject() -> Any? { remaining.next() }
}
