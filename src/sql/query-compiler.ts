// Bound expressions and SELECT plans → SQL text for MySQL 8 and MariaDB, with every value a `?`
// placeholder (a value from a request never enters the text) and every identifier through the one
// quoter. The visitor is typed over every bound node kind, so a new kind does not compile until it is
// handled here. State (text, parameters, range aliases) is reset per compile; one compiler serves one
// statement at a time.
//
// Rules that are not obvious from the OData side:
// - ENUM columns (Recorder_Type, RecordType) sort and compare by their declaration index in MySQL, but
//   they are strings to clients: in every expression they are read as utf8mb4_bin text.
// - Decimal and Int64 literals are cast (DECIMAL(65,30), SIGNED), because MySQL compares a DECIMAL column
//   with a string placeholder as floating point.
// - LIKE patterns are built from escaped values (like-pattern.ts); a pattern that is not a literal uses
//   LOCATE/LEFT/RIGHT instead, which take no wildcards.
// - A navigation path joins with LEFT JOIN, so an empty reference gives NULL properties, not a lost row.
// - utf8mb4_bin is a PAD SPACE collation ('a' = 'a ' in MySQL and MariaDB): string eq, ne and in also
//   compare lengths. Ordering comparisons (gt, lt) keep the collation's padding.
import { ODataError } from '../errors.js'
import {
  visitBound,
  type BoundAggregate,
  type BoundArithmetic,
  type BoundCast,
  type BoundComparison,
  type BoundExpression,
  type BoundExpressionVisitor,
  type BoundFunctionCall,
  type BoundIn,
  type BoundKeyText,
  type BoundLiteral,
  type BoundOrderItem,
  type BoundTransformation,
  type QueryScope,
  type QueryableSource,
  type Range,
  type SourceColumn,
} from '../odata/bind/index.js'
import { Statement } from '../statement.js'
import { containsPattern, endsWithPattern, LIKE_ESCAPE_CHARACTER, startsWithPattern } from './like-pattern.js'
import { quoteIdentifier as q } from './quote-identifier.js'
import type { SelectPlan } from './select-plan.js'
import { MYSQL_DIALECT, type SqlDialect } from './sql-dialect.js'

const COMPARISON_SQL = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' } as const
const ARITHMETIC_SQL = { add: '+', sub: '-', mul: '*' } as const
const AGGREGATE_SQL = { sum: 'SUM', average: 'AVG', min: 'MIN', max: 'MAX' } as const
const DATE_PART_SQL = { year: 'YEAR', month: 'MONTH', day: 'DAY', hour: 'HOUR', minute: 'MINUTE', second: 'SECOND' } as const
const ESCAPE = ` ESCAPE '${LIKE_ESCAPE_CHARACTER}'`

export class QueryCompiler {
  private sql = ''
  private parameters: unknown[] = []
  private readonly aliases = new Map<Range, string>()

  constructor(private readonly dialect: SqlDialect = MYSQL_DIALECT) {}

  /** A whole SELECT statement. */
  compileSelect(plan: SelectPlan): Statement {
    this.reset()
    this.select(plan)
    return this.result()
  }

  /** One expression alone, with the ranges it uses named as in a statement over `scope` (for tests and diagnostics). */
  compileExpression(expression: BoundExpression, scope: QueryScope): Statement {
    this.reset()
    this.nameRanges(scope)
    this.expression(expression)
    return this.result()
  }

  private reset(): void {
    this.sql = ''
    this.parameters = []
    this.aliases.clear()
  }

  private result(): Statement {
    return new Statement(this.sql, this.parameters)
  }

  private append(text: string): void {
    this.sql += text
  }

  private parameter(value: unknown): void {
    this.sql += '?'
    this.parameters.push(value)
  }

  private list<T>(items: readonly T[], each: (item: T) => void, separator = ', '): void {
    items.forEach((item, i) => {
      if (i > 0) this.append(separator)
      each(item)
    })
  }

  // --- statements ---------------------------------------------------------------------------------

  private select(plan: SelectPlan): void {
    // The SELECT list comes before FROM in the text, so the scope's ranges are named first.
    this.nameRanges(plan.scope)
    this.append('SELECT ')
    if (plan.columns.length === 0) this.append('1')
    this.list(plan.columns, (column) => {
      this.outputValue(column.expression)
      if (column.alias !== undefined) this.append(` AS ${q(column.alias)}`)
    })
    this.append(' FROM ')
    this.from(plan.scope)
    this.where(plan.where)
    if (plan.groupBy && plan.groupBy.length > 0) {
      this.append(' GROUP BY ')
      this.list(plan.groupBy, (e) => this.outputValue(e))
    }
    this.orderBy(plan.orderBy ?? [])
    this.limit(plan.limit, plan.offset)
  }

  private where(conditions: readonly BoundExpression[]): void {
    if (conditions.length === 0) return
    this.append(' WHERE ')
    this.list(conditions, (c) => this.expression(c), ' AND ')
  }

  private orderBy(ordered: readonly BoundOrderItem[]): void {
    // A constant orders nothing, and `ORDER BY ?` with a number would be read as a column position.
    const items = ordered.filter((item) => item.expression.kind !== 'BoundLiteral')
    if (items.length === 0) return
    this.append(' ORDER BY ')
    this.list(items, (item) => {
      this.expression(item.expression)
      this.append(item.descending ? ' DESC' : ' ASC')
    })
  }

  private limit(limit: number | undefined, offset: number | undefined): void {
    if (limit === undefined && (offset === undefined || offset === 0)) return
    this.append(' LIMIT ')
    if (limit === undefined) this.append(this.dialect.unlimitedRows)
    else this.parameter(limit)
    if (offset !== undefined && offset > 0) {
      this.append(' OFFSET ')
      this.parameter(offset)
    }
  }

  /** Aliases for a scope's root and joins: t0, t1, … unique within the statement. */
  private nameRanges(scope: QueryScope): void {
    for (const range of [scope.root, ...scope.joins]) {
      if (!this.aliases.has(range)) this.aliases.set(range, `t${this.aliases.size}`)
    }
  }

  private alias(range: Range): string {
    const alias = this.aliases.get(range)
    if (alias === undefined) throw new Error(`internal: a range of ${range.source.name} is used outside its scope`)
    return alias
  }

  /** FROM the root relation, then one LEFT JOIN per reference range. */
  private from(scope: QueryScope): void {
    this.relation(scope.root.source)
    this.append(` AS ${this.alias(scope.root)}`)
    for (const range of scope.joins) {
      if (range.origin.kind !== 'reference') continue
      const targetKey = singleKey(range.source)
      this.append(' LEFT JOIN ')
      this.relation(range.source)
      this.append(
        ` AS ${this.alias(range)} ON ${this.alias(range)}.${q(targetKey.sqlName)} = ${this.alias(range.origin.parent)}.${q(range.origin.navigation.foreignKey.sqlName)}`,
      )
    }
  }

  private relation(source: QueryableSource): void {
    const relation = source.relation
    switch (relation.kind) {
      case 'table':
        this.append(q(relation.table))
        return
      case 'derived':
        this.append(`(${relation.statement.text})`)
        this.parameters.push(...relation.statement.parameters)
        return
      case 'transformed':
        this.append('(')
        this.transformation(relation.input, relation.transformation)
        this.append(')')
        return
    }
  }

  /** A `$apply` step as a derived table over its input scope. */
  private transformation(input: QueryScope, transformation: BoundTransformation): void {
    const columns = transformation.columns.map((c) => ({ expression: c.expression, alias: c.column.sqlName }))
    switch (transformation.kind) {
      case 'filter':
        return this.select({ scope: input, columns, where: [transformation.predicate] })
      case 'compute':
        return this.select({ scope: input, columns, where: [] })
      case 'aggregate':
        return this.select({ scope: input, columns, where: [], groupBy: transformation.groupBy })
      case 'slice': {
        const sliced = transformation.top !== undefined || transformation.skip !== undefined
        // ORDER BY without LIMIT in a derived table means nothing to MySQL: the order is carried by the
        // source (QueryableSource.ordering) and applied by whoever reads it.
        return this.select({
          scope: input,
          columns,
          where: [],
          ...(sliced ? { orderBy: transformation.orderBy } : {}),
          ...(transformation.top !== undefined ? { limit: transformation.top } : {}),
          ...(transformation.skip !== undefined ? { offset: transformation.skip } : {}),
        })
      }
    }
  }

  /** A correlated subquery over the members of a collection navigation: FROM, joins, the link to the parent. */
  private membersFrom(members: QueryScope, extra: BoundExpression | null, negateExtra = false): void {
    const origin = members.root.origin
    if (origin.kind !== 'collection') throw new Error('internal: a member scope without a collection origin')
    this.nameRanges(members)
    this.append(' FROM ')
    this.from(members)
    this.append(' WHERE ')
    const child = members.root.source
    this.list(
      origin.navigation.links,
      (link) =>
        this.append(
          `${this.alias(members.root)}.${q(child.columnByName.get(link.child)!.sqlName)} = ${this.alias(origin.parent)}.${q(link.parent.sqlName)}`,
        ),
      ' AND ',
    )
    if (extra !== null) {
      this.append(' AND (')
      this.expression(extra)
      this.append(negateExtra ? ') IS NOT TRUE' : ')')
    }
  }

  // --- expressions --------------------------------------------------------------------------------

  /** A value for the SELECT list or GROUP BY: plain columns as stored (ENUMs need no text conversion there). */
  private outputValue(expression: BoundExpression): void {
    if (expression.kind === 'BoundProperty') this.append(this.columnReference(expression.range, expression.column))
    else this.expression(expression)
  }

  private columnReference(range: Range, column: SourceColumn): string {
    return `${this.alias(range)}.${q(column.sqlName)}`
  }

  private expression(expression: BoundExpression): void {
    visitBound(expression, this.visitor, undefined)
  }

  private readonly visitor: BoundExpressionVisitor<void> = {
    BoundLiteral: (node) => this.literal(node),
    BoundProperty: (node) => {
      const reference = this.columnReference(node.range, node.column)
      this.append(node.column.property.storage.kind === 'enum' ? this.dialect.asBinaryText(reference) : reference)
    },
    BoundComparison: (node) => this.comparison(node),
    BoundLogical: (node) => {
      this.append('(')
      this.expression(node.left)
      this.append(node.operator === 'and' ? ' AND ' : ' OR ')
      this.expression(node.right)
      this.append(')')
    },
    BoundNot: (node) => {
      this.append('(NOT ')
      this.expression(node.operand)
      this.append(')')
    },
    BoundArithmetic: (node) => this.arithmetic(node),
    BoundNegate: (node) => {
      this.append('(-')
      this.expression(node.operand)
      this.append(')')
    },
    BoundIn: (node) => this.inList(node),
    BoundFunctionCall: (node) => this.functionCall(node),
    BoundCast: (node) => this.cast(node),
    BoundLambda: (node) => {
      // all(x: p) holds when no member makes p anything but true (false or null).
      this.append(node.operator === 'any' ? '(EXISTS (SELECT 1' : '(NOT EXISTS (SELECT 1')
      this.membersFrom(node.members, node.predicate, node.operator === 'all')
      this.append('))')
    },
    BoundCollectionCount: (node) => {
      this.append('(SELECT COUNT(*)')
      this.membersFrom(node.members, node.filter)
      this.append(')')
    },
    BoundAggregate: (node) => this.aggregate(node),
    BoundKeyText: (node) => this.keyText(node),
  }

  private literal(node: BoundLiteral): void {
    if (node.value === null) return this.append('NULL')
    switch (node.type) {
      case 'Edm.Decimal':
        this.append('CAST(')
        this.parameter(node.value)
        return this.append(' AS DECIMAL(65,30))')
      case 'Edm.Int64':
        this.append('CAST(')
        this.parameter(node.value)
        return this.append(' AS SIGNED)')
      case 'Edm.DateTimeOffset':
        this.append('CAST(')
        this.parameter(node.value)
        return this.append(' AS DATETIME(6))')
      case 'Edm.Date':
        this.append('CAST(')
        this.parameter(node.value)
        return this.append(' AS DATE)')
      case 'Edm.TimeOfDay':
        this.append('CAST(')
        this.parameter(node.value)
        return this.append(' AS TIME(6))')
      default:
        return this.parameter(node.value)
    }
  }

  private comparison(node: BoundComparison): void {
    const leftNull = node.left.kind === 'BoundLiteral' && node.left.value === null
    const rightNull = node.right.kind === 'BoundLiteral' && node.right.value === null
    if ((leftNull || rightNull) && (node.operator === 'eq' || node.operator === 'ne')) {
      if (leftNull && rightNull) return this.append(node.operator === 'eq' ? 'TRUE' : 'FALSE')
      this.append('(')
      this.expression(leftNull ? node.right : node.left)
      return this.append(node.operator === 'eq' ? ' IS NULL)' : ' IS NOT NULL)')
    }
    if ((node.operator === 'eq' || node.operator === 'ne') && node.left.type === 'Edm.String' && node.right.type === 'Edm.String') {
      // utf8mb4_bin pads: 'a' = 'a ' holds in MySQL. The lengths must agree too for OData's equality.
      this.append(node.operator === 'eq' ? '((' : '(NOT ((')
      this.expression(node.left)
      this.append(' = ')
      this.expression(node.right)
      this.append(') AND (')
      this.characterLength(node.left)
      this.append(' = ')
      this.characterLength(node.right)
      return this.append(node.operator === 'eq' ? '))' : ')))')
    }
    this.append('(')
    this.expression(node.left)
    this.append(` ${COMPARISON_SQL[node.operator]} `)
    this.expression(node.right)
    this.append(')')
  }

  /** The length in characters; of a literal it is known here (code points, as CHAR_LENGTH counts them). */
  private characterLength(expression: BoundExpression): void {
    if (expression.kind === 'BoundLiteral' && typeof expression.value === 'string') return this.parameter([...expression.value].length)
    this.append('CHAR_LENGTH(')
    this.expression(expression)
    this.append(')')
  }

  private arithmetic(node: BoundArithmetic): void {
    if (node.right.type === 'Edm.Duration') {
      // A date-time plus or minus a duration (seconds).
      this.append('TIMESTAMPADD(SECOND, ')
      if (node.operator === 'sub') this.append('-')
      this.append('(')
      this.expression(node.right)
      this.append('), ')
      this.expression(node.left)
      return this.append(')')
    }
    switch (node.operator) {
      case 'add':
      case 'sub':
      case 'mul':
        this.append('(')
        this.expression(node.left)
        this.append(` ${ARITHMETIC_SQL[node.operator]} `)
        this.expression(node.right)
        return this.append(')')
      case 'div':
      case 'divby': {
        // div of two integers is integer division (URL Conventions 5.1.1.2.4); divby always keeps the fraction.
        const integral = node.operator === 'div' && (node.type === 'Edm.Int32' || node.type === 'Edm.Int64')
        this.append('(')
        this.expression(node.left)
        this.append(integral ? ' DIV ' : ' / ')
        this.divisor(node.right)
        return this.append(')')
      }
      case 'mod':
        this.append('MOD(')
        this.expression(node.left)
        this.append(', ')
        this.divisor(node.right)
        return this.append(')')
    }
  }

  /**
   * A divisor that fails the statement when it is zero. MySQL answers NULL for a division by zero in a
   * SELECT (strict mode only refuses it in writes), so `$filter=Quantity div 0 gt 1` would be an empty
   * set; OData makes it an error. The zero branch overflows BIGINT UNSIGNED (error 1690, on MySQL 8 and
   * MariaDB alike), and only for a row whose divisor is zero: the operand depends on the row, so it is
   * not folded ahead. `~` marks the failure as this one (OData has no `~`; src/store/query-errors.ts reads it).
   */
  private divisor(expression: BoundExpression): void {
    if (expression.kind === 'BoundLiteral' && (typeof expression.value === 'number' || typeof expression.value === 'string')) {
      if (Number(expression.value) === 0)
        throw new ODataError('DivisionByZero', 'The request divides by zero (a div, divby or mod by the literal 0).')
      return this.expression(expression)
    }
    this.append('CASE WHEN ')
    this.expression(expression)
    this.append(' = 0 THEN ~0 + (')
    this.expression(expression)
    this.append(' = 0) ELSE ')
    this.expression(expression)
    this.append(' END')
  }

  /**
   * `CAST(CONCAT_WS('|', …) AS BINARY)` of the key columns, a string column as its length and itself
   * (bound-key-text.ts). Compared as bytes: exact, with no padding rule, and the server's search of the
   * list compares bytes instead of collating (on the service's utf8mb4_bin connections the collated text
   * took the changed rows' statement from 4 to 9 ms, the bytes 3 ms).
   */
  private keyText(node: BoundKeyText): void {
    this.append("CAST(CONCAT_WS('|'")
    for (const part of node.parts) {
      const reference = this.columnReference(part.range, part.column)
      this.append(part.type === 'Edm.String' ? `, CHAR_LENGTH(${reference}), ${reference}` : `, ${reference}`)
    }
    this.append(') AS BINARY)')
  }

  private inList(node: BoundIn): void {
    const values = node.items.filter((item) => !(item.kind === 'BoundLiteral' && item.value === null))
    const withNull = values.length < node.items.length
    if (values.length === 0 && !withNull) return this.append('FALSE')
    this.append('(')
    if (values.length > 0) {
      if (withNull) this.append('(')
      this.expression(node.left)
      this.append(' IN (')
      this.list(values, (v) => this.expression(v))
      this.append(')')
      // A key text needs no length pair: it is compared as bytes, with no padding rule.
      if (node.left.type === 'Edm.String' && node.left.kind !== 'BoundKeyText') {
        // As for eq: padding makes 'a ' equal 'a'; comparing (length, text) pairs keeps it exact, while
        // the plain IN before it keeps the index.
        this.append(' AND (')
        this.characterLength(node.left)
        this.append(', ')
        this.expression(node.left)
        this.append(') IN (')
        this.list(values, (v) => {
          this.append('(')
          this.characterLength(v)
          this.append(', ')
          this.expression(v)
          this.append(')')
        })
        this.append(')')
      }
    }
    if (withNull) {
      if (values.length > 0) this.append(') OR ')
      this.expression(node.left)
      this.append(' IS NULL')
    }
    this.append(')')
  }

  private call(name: string, args: readonly BoundExpression[]): void {
    this.append(`${name}(`)
    this.list(args, (a) => this.expression(a))
    this.append(')')
  }

  private functionCall(node: BoundFunctionCall): void {
    const [first, second, third] = node.arguments
    switch (node.name) {
      case 'contains':
      case 'startswith':
      case 'endswith':
        return this.textMatch(node.name, first!, second!)
      case 'indexof':
        // 0-based, -1 when absent; LOCATE is 1-based, 0 when absent.
        this.append('(LOCATE(')
        this.expression(second!)
        this.append(', ')
        this.expression(first!)
        return this.append(') - 1)')
      case 'length':
        return this.call('CHAR_LENGTH', [first!])
      case 'substring':
        // 0-based start; a negative start or length counts as 0.
        this.append('SUBSTRING(')
        this.expression(first!)
        this.append(', GREATEST(')
        this.expression(second!)
        this.append(', 0) + 1')
        if (third) {
          this.append(', GREATEST(')
          this.expression(third)
          this.append(', 0)')
        }
        return this.append(')')
      case 'tolower':
        return this.call('LOWER', [first!])
      case 'toupper':
        return this.call('UPPER', [first!])
      case 'trim':
        return this.call('TRIM', [first!])
      case 'concat':
        return this.call('CONCAT', [first!, second!])
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        return this.call(DATE_PART_SQL[node.name], [first!])
      case 'date':
        return this.call('DATE', [first!])
      case 'time':
        return this.call('TIME', [first!])
      case 'fractionalseconds':
        // DATETIME columns hold whole seconds.
        return this.append('0')
      case 'totaloffsetminutes':
        // Date-times are stored in UTC (decisions.md §3).
        return this.append('0')
      case 'totalseconds':
        return this.expression(first!)
      case 'now':
        return this.append('UTC_TIMESTAMP()')
      case 'mindatetime':
        return this.append("CAST('0001-01-01 00:00:00' AS DATETIME)")
      case 'maxdatetime':
        return this.append("CAST('9999-12-31 23:59:59' AS DATETIME)")
      case 'round':
        return this.call('ROUND', [first!])
      case 'floor':
        return this.call('FLOOR', [first!])
      case 'ceiling':
        return this.call('CEILING', [first!])
      default:
        throw new Error(`internal: no SQL for the function ${node.name}`)
    }
  }

  private textMatch(name: 'contains' | 'startswith' | 'endswith', text: BoundExpression, part: BoundExpression): void {
    if (part.kind === 'BoundLiteral' && typeof part.value === 'string') {
      const pattern =
        name === 'contains'
          ? containsPattern(part.value)
          : name === 'startswith'
            ? startsWithPattern(part.value)
            : endsWithPattern(part.value)
      this.append('(')
      this.expression(text)
      this.append(' LIKE ')
      this.parameter(pattern)
      return this.append(`${ESCAPE})`)
    }
    if (name === 'contains') {
      this.append('(LOCATE(')
      this.expression(part)
      this.append(', ')
      this.expression(text)
      return this.append(') > 0)')
    }
    this.append(name === 'startswith' ? '(LEFT(' : '(RIGHT(')
    this.expression(text)
    this.append(', CHAR_LENGTH(')
    this.expression(part)
    this.append(')) = ')
    this.expression(part)
    this.append(')')
  }

  private cast(node: BoundCast): void {
    const from = node.operand.type
    const wrap = (before: string, after: string) => {
      this.append(before)
      this.expression(node.operand)
      this.append(after)
    }
    switch (node.type) {
      case 'Edm.String':
        if (from === 'Edm.DateTimeOffset') return wrap('DATE_FORMAT(', ", '%Y-%m-%dT%H:%i:%sZ')")
        if (from === 'Edm.Boolean') return wrap('IF(', ", 'true', 'false')")
        {
          const marker = '\u0000'
          const [before, after] = this.dialect.asBinaryText(marker).split(marker) as [string, string]
          return wrap(before, after)
        }
      case 'Edm.Int32':
      case 'Edm.Int64':
        return wrap('CAST(', ' AS SIGNED)')
      case 'Edm.Decimal':
        return wrap('CAST(', ' AS DECIMAL(38,10))')
      case 'Edm.Double':
        return wrap('CAST(', ' AS DOUBLE)')
      case 'Edm.Date':
        return wrap('CAST(', ' AS DATE)')
      case 'Edm.DateTimeOffset':
        return wrap('CAST(', ' AS DATETIME)')
      case 'Edm.Guid':
        return wrap('LOWER(', ')')
      default:
        return this.expression(node.operand)
    }
  }

  private aggregate(node: BoundAggregate): void {
    switch (node.method) {
      case 'count':
        return this.append('COUNT(*)')
      case 'countdistinct':
        this.append('COUNT(DISTINCT ')
        this.expression(node.operand!)
        return this.append(')')
      default:
        return this.call(AGGREGATE_SQL[node.method], [node.operand!])
    }
  }
}

/** The key a reference points to (Ref_Key of a catalog, document or chart of accounts). */
function singleKey(source: QueryableSource): SourceColumn {
  const key = source.rowKey
  if (key.length !== 1) throw new Error(`internal: ${source.name} is not referable by one key column`)
  return key[0]!
}
