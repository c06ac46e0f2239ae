/**
 * Collects the placeholders of one request's expressions. DynamoDB rejects a request that defines a
 * name or value no expression uses, so each is defined only when an expression asks for it.
 */
export class Expression {
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};
  private count = 0;

  /** `#attr` for an attribute name (every name in `construct-contract.ts` is a plain identifier). */
  name(attribute: string): string {
    const placeholder = `#${attribute}`;
    this.names[placeholder] = attribute;
    return placeholder;
  }

  /** A fresh `:vN` placeholder for a value. */
  value(value: unknown): string {
    const placeholder = `:v${this.count++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** `#attr = :vN` */
  equals(attribute: string, value: unknown): string {
    return `${this.name(attribute)} = ${this.value(value)}`;
  }

  /** `#attr = if_not_exists(#attr, :vN)`: sets the attribute only where the item lacks it. */
  setIfAbsent(attribute: string, value: unknown): string {
    const name = this.name(attribute);
    return `${name} = if_not_exists(${name}, ${this.value(value)})`;
  }

  exists(attribute: string): string {
    return `attribute_exists(${this.name(attribute)})`;
  }

  absent(attribute: string): string {
    return `attribute_not_exists(${this.name(attribute)})`;
  }

  /** The attribute equals what was seen, or is absent if it was absent. */
  unchanged(attribute: string, seen: unknown): string {
    return seen === undefined ? this.absent(attribute) : this.equals(attribute, seen);
  }

  /** The request parameters for the placeholders used so far. */
  params(): { ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      ExpressionAttributeNames: { ...this.names },
      ...(this.count > 0 ? { ExpressionAttributeValues: { ...this.values } } : {}),
    };
  }
}
