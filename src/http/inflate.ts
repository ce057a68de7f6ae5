// Raw DEFLATE (RFC 1951) decoded synchronously, after Mark Adler's puff.c: the OpenAPI document is
// kept deflated in the bundle (src/http/openapi-document.ts), and its readers (the /openapi.json
// route, the tests) want it without awaiting a DecompressionStream. Small and slow-ish (a bit at
// a time through canonical Huffman codes): it runs once per isolate, for the first /openapi.json.
// test/openapi-drift.test.ts checks its output against the document Node's zlib deflated.

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** The order in which a dynamic block sends its code-length code lengths. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const MAX_BITS = 15;

/** A canonical Huffman code: how many codes of each length, and the symbols in code order. */
interface Huffman {
  counts: Uint16Array;
  symbols: Uint16Array;
}

function huffman(lengths: ArrayLike<number>): Huffman {
  const counts = new Uint16Array(MAX_BITS + 1);
  const symbols = new Uint16Array(lengths.length);
  for (let symbol = 0; symbol < lengths.length; symbol++) counts[lengths[symbol] as number]! += 1;
  const offsets = new Uint16Array(MAX_BITS + 2);
  for (let length = 1; length <= MAX_BITS; length++) offsets[length + 1] = offsets[length]! + counts[length]!;
  for (let symbol = 0; symbol < lengths.length; symbol++) {
    const length = lengths[symbol] as number;
    if (length !== 0) symbols[offsets[length]!++] = symbol;
  }
  return { counts, symbols };
}

const FIXED_LENGTHS = huffmanOf(288, (symbol) => (symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8));
const FIXED_DISTANCES = huffmanOf(30, () => 5);

function huffmanOf(count: number, length: (symbol: number) => number): Huffman {
  return huffman(Array.from({ length: count }, (_, symbol) => length(symbol)));
}

/** Inflates `input` (raw DEFLATE, no zlib or gzip header) into exactly `size` bytes. */
export function inflateRaw(input: Uint8Array, size: number): Uint8Array {
  const output = new Uint8Array(size);
  let outPos = 0;
  let inPos = 0;
  let bitBuffer = 0;
  let bitCount = 0;

  const bits = (need: number): number => {
    let value = bitBuffer;
    while (bitCount < need) {
      if (inPos >= input.length) throw new Error('inflate: input ends early');
      value |= input[inPos++]! << bitCount;
      bitCount += 8;
    }
    bitBuffer = value >>> need;
    bitCount -= need;
    return value & ((1 << need) - 1);
  };

  const decode = ({ counts, symbols }: Huffman): number => {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let length = 1; length <= MAX_BITS; length++) {
      code |= bits(1);
      const count = counts[length]!;
      if (code - count < first) return symbols[index + (code - first)]!;
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw new Error('inflate: bad Huffman code');
  };

  const codes = (lengths: Huffman, distances: Huffman): void => {
    for (;;) {
      let symbol = decode(lengths);
      if (symbol < 256) {
        output[outPos++] = symbol;
        continue;
      }
      if (symbol === 256) return;
      symbol -= 257;
      const length = LENGTH_BASE[symbol]! + bits(LENGTH_EXTRA[symbol]!);
      const distanceSymbol = decode(distances);
      const distance = DISTANCE_BASE[distanceSymbol]! + bits(DISTANCE_EXTRA[distanceSymbol]!);
      if (distance > outPos || outPos + length > size) throw new Error('inflate: bad distance or length');
      for (let i = 0; i < length; i++, outPos++) output[outPos] = output[outPos - distance]!;
    }
  };

  const dynamic = (): void => {
    const lengthCount = bits(5) + 257;
    const distanceCount = bits(5) + 1;
    const codeLengthCount = bits(4) + 4;
    const codeLengths = new Uint8Array(19);
    for (let i = 0; i < codeLengthCount; i++) codeLengths[CODE_LENGTH_ORDER[i]!] = bits(3);
    const codeLengthCode = huffman(codeLengths);
    const lengths = new Uint8Array(lengthCount + distanceCount);
    for (let index = 0; index < lengths.length; ) {
      const symbol = decode(codeLengthCode);
      if (symbol < 16) {
        lengths[index++] = symbol;
        continue;
      }
      let repeated = 0;
      let times: number;
      if (symbol === 16) {
        if (index === 0) throw new Error('inflate: repeat with no previous length');
        repeated = lengths[index - 1]!;
        times = 3 + bits(2);
      } else if (symbol === 17) times = 3 + bits(3);
      else times = 11 + bits(7);
      if (index + times > lengths.length) throw new Error('inflate: too many lengths');
      while (times-- > 0) lengths[index++] = repeated;
    }
    codes(huffman(lengths.subarray(0, lengthCount)), huffman(lengths.subarray(lengthCount)));
  };

  let last = 0;
  while (!last) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      // Stored: from the next byte boundary, LEN and its complement, then LEN bytes as they are.
      bitBuffer = 0;
      bitCount = 0;
      const length = input[inPos]! | (input[inPos + 1]! << 8);
      inPos += 4;
      output.set(input.subarray(inPos, inPos + length), outPos);
      inPos += length;
      outPos += length;
    } else if (type === 1) codes(FIXED_LENGTHS, FIXED_DISTANCES);
    else if (type === 2) dynamic();
    else throw new Error('inflate: bad block type');
  }
  if (outPos !== size) throw new Error(`inflate: ${outPos} bytes, expected ${size}`);
  return output;
}
