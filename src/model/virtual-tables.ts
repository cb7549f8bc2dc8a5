// Signatures of the register virtual tables (service.md §4.2, decisions.md §6): which function each
// register kind has, its parameters, and the columns of its result. `$metadata` declares them from
// here, and the function layer resolves calls against the same table, so the two cannot drift.
import type { EdmPrimitiveType, PropertyModel } from './model.js'

export type VirtualTableName =
  | 'SliceLast'
  | 'SliceFirst'
  | 'Balance'
  | 'Turnovers'
  | 'BalanceAndTurnovers'
  | 'ExtDimensions'
  | 'RecordsWithExtDimensions'

export interface VirtualTableParameter {
  readonly name: string
  readonly edmType: EdmPrimitiveType
}

export interface VirtualTableSignature {
  readonly name: VirtualTableName
  readonly parameters: readonly VirtualTableParameter[]
  /**
   * The result type: the register's own entity type for slices, otherwise a complex type
   * `<Set>_<Suffix>` whose properties are `resultProperties`.
   */
  readonly resultType: string
  readonly resultIsEntity: boolean
  readonly resultProperties: readonly PropertyModel[]
}

/** Periodicity values of §4.3, case-sensitive, in the order of their columns. */
export const PERIODICITIES = [
  'Recorder',
  'Record',
  'Second',
  'Minute',
  'Hour',
  'Day',
  'Week',
  'TenDays',
  'Month',
  'Quarter',
  'HalfYear',
  'Year',
  'Auto',
] as const
export type Periodicity = (typeof PERIODICITIES)[number]

/** The time-based periodicities, each filling a `<Kind>Period` column of a turnover result. */
export const PERIOD_KINDS = ['Second', 'Minute', 'Hour', 'Day', 'Week', 'TenDays', 'Month', 'Quarter', 'HalfYear', 'Year'] as const

const parameter = (name: string, edmType: EdmPrimitiveType = 'Edm.String'): VirtualTableParameter => Object.freeze({ name, edmType })

export const PARAMETERS = {
  Period: parameter('Period', 'Edm.DateTimeOffset'),
  StartPeriod: parameter('StartPeriod', 'Edm.DateTimeOffset'),
  EndPeriod: parameter('EndPeriod', 'Edm.DateTimeOffset'),
  Condition: parameter('Condition'),
  Dimensions: parameter('Dimensions'),
  Periodicity: parameter('Periodicity'),
  AccountCondition: parameter('AccountCondition'),
  BalancedAccountCondition: parameter('BalancedAccountCondition'),
  ExtraDimensions: parameter('ExtraDimensions'),
  BalancedExtraDimensions: parameter('BalancedExtraDimensions'),
  Order: parameter('Order'),
  Top: parameter('Top', 'Edm.Int32'),
} as const

/** Parameters per function and register family; the function layer refuses any other name (decisions.md §6). */
export const ACCUMULATION_PARAMETERS: Readonly<Record<'Balance' | 'Turnovers' | 'BalanceAndTurnovers', readonly VirtualTableParameter[]>> =
  {
    Balance: [PARAMETERS.Period, PARAMETERS.Condition, PARAMETERS.Dimensions],
    Turnovers: [PARAMETERS.StartPeriod, PARAMETERS.EndPeriod, PARAMETERS.Periodicity, PARAMETERS.Condition, PARAMETERS.Dimensions],
    BalanceAndTurnovers: [
      PARAMETERS.StartPeriod,
      PARAMETERS.EndPeriod,
      PARAMETERS.Periodicity,
      PARAMETERS.Condition,
      PARAMETERS.Dimensions,
    ],
  }

export const SLICE_PARAMETERS: readonly VirtualTableParameter[] = [PARAMETERS.Period, PARAMETERS.Condition, PARAMETERS.Dimensions]

export const ACCOUNTING_PARAMETERS: Readonly<
  Record<'Balance' | 'Turnovers' | 'BalanceAndTurnovers' | 'ExtDimensions' | 'RecordsWithExtDimensions', readonly VirtualTableParameter[]>
> = {
  Balance: [PARAMETERS.Period, PARAMETERS.AccountCondition, PARAMETERS.Condition, PARAMETERS.ExtraDimensions, PARAMETERS.Dimensions],
  Turnovers: [
    PARAMETERS.StartPeriod,
    PARAMETERS.EndPeriod,
    PARAMETERS.Periodicity,
    PARAMETERS.AccountCondition,
    PARAMETERS.BalancedAccountCondition,
    PARAMETERS.ExtraDimensions,
    PARAMETERS.BalancedExtraDimensions,
    PARAMETERS.Condition,
    PARAMETERS.Dimensions,
  ],
  BalanceAndTurnovers: [
    PARAMETERS.StartPeriod,
    PARAMETERS.EndPeriod,
    PARAMETERS.Periodicity,
    PARAMETERS.AccountCondition,
    PARAMETERS.ExtraDimensions,
    PARAMETERS.Condition,
    PARAMETERS.Dimensions,
  ],
  // The extra-dimension kinds of every account: nothing to choose (a $filter on Account_Key selects accounts).
  ExtDimensions: [],
  RecordsWithExtDimensions: [PARAMETERS.StartPeriod, PARAMETERS.EndPeriod, PARAMETERS.Condition, PARAMETERS.Order, PARAMETERS.Top],
}

/** The complex-type suffix of each function's result (decisions.md §6). */
export const RESULT_SUFFIX: Readonly<Record<VirtualTableName, string>> = {
  SliceLast: '',
  SliceFirst: '',
  Balance: 'Balance',
  Turnovers: 'Turnover',
  BalanceAndTurnovers: 'BalanceAndTurnover',
  ExtDimensions: 'ExtDimensions',
  RecordsWithExtDimensions: 'RecordsWithExtDimensions',
}
